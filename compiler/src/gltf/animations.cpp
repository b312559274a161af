// glTF reader: the animations stage (glTF 2.0 "Animations"): samplers (input times,
// interpolation), channels and their targets, output formats and counts per path, unit
// quaternions, and the GltfChannel curves handed to the importer.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "reader_internal.h"

namespace animpack::gltf_internal {

namespace {

struct SamplerState {
  bool valid = false;  // input and output decoded and checked
  int input = -1;
  int output = -1;
  Interpolation interpolation = Interpolation::kLinear;
};

SamplerState read_sampler(Reader& r, const json& obj, const std::string& at) {
  SamplerState s;
  const size_t errors_before = r.issues.errors();
  const std::optional<int> input =
      get_index(r.issues, obj, at, "input", r.doc.accessors.size(), Need::kRequired);
  const std::optional<int> output =
      get_index(r.issues, obj, at, "output", r.doc.accessors.size(), Need::kRequired);
  const std::string interpolation =
      get_string(r.issues, obj, at, "interpolation", Need::kOptional).value_or("LINEAR");
  if (interpolation == "STEP") {
    s.interpolation = Interpolation::kStep;
  } else if (interpolation == "LINEAR") {
    s.interpolation = Interpolation::kLinear;
  } else if (interpolation == "CUBICSPLINE") {
    s.interpolation = Interpolation::kCubicSpline;
  } else {
    r.issues.error(ptr(at, "interpolation"), "VALUE_NOT_IN_LIST",
                   "Invalid value " + in_quotes(interpolation) +
                       ". Valid values are ('LINEAR', 'STEP', 'CUBICSPLINE').");
  }

  const GltfAccessor* in = input ? r.accessor(*input) : nullptr;
  const GltfAccessor* out = output ? r.accessor(*output) : nullptr;
  if (in) need_data(r, *input, ptr(at, "input"));
  if (out) need_data(r, *output, ptr(at, "output"));
  if (in) {
    const std::string p = ptr(at, "input");
    if (r.view_stride(*in) != 0) {
      r.issues.error(p, "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
                     "bufferView.byteStride must not be defined for buffer views used by animation "
                     "sampler accessors.");
    }
    const bool format_ok = in->type == GltfAccessorType::kScalar &&
                           in->component_type == GltfComponentType::kFloat && !in->normalized;
    if (!format_ok) {
      r.issues.error(p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT",
                     "Invalid Animation sampler input accessor format " + format_of(*in) +
                         ". Must be one of ('{SCALAR, FLOAT}').");
    }
    if (!in->has_bounds) {
      r.issues.error(p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS",
                     "accessor.min and accessor.max must be defined for animation input accessor.");
    }
    if (s.interpolation == Interpolation::kCubicSpline && in->count < 2) {
      r.issues.error(
          p, "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
          "Animation sampler with 'CUBICSPLINE' interpolation must have at least 2 keys. Got " +
              std::to_string(in->count) + ".");
    }
    if (format_ok && in->decoded) {
      // Key times: not negative and strictly ascending (glTF 2.0 "Animations").
      float last = 0;
      for (size_t k = 0; k < in->floats.size(); ++k) {
        const float t = in->floats[k];
        if (t < 0) {
          r.issues.error(p, "ACCESSOR_ANIMATION_INPUT_NEGATIVE",
                         "Animation input accessor element at index " + std::to_string(k) +
                             " is negative: " + num(t) + ".");
          break;
        }
        if (k > 0 && !(t > last)) {
          r.issues.error(p, "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
                         "Animation input accessor element at index " + std::to_string(k) +
                             " is less than or equal to previous: " + num(t) + " <= " + num(last) +
                             ".");
          break;
        }
        last = t;
      }
    }
  }
  if (out && r.view_stride(*out) != 0) {
    r.issues.error(ptr(at, "output"), "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
                   "bufferView.byteStride must not be defined for buffer views used by animation "
                   "sampler accessors.");
  }
  s.input = input.value_or(-1);
  s.output = output.value_or(-1);
  s.valid = r.issues.errors() == errors_before && in && out && in->decoded && out->decoded;
  return s;
}

// Whether the output format suits the path (glTF 2.0 "Animations", table of accessor types).
bool output_format_ok(const Reader& r, std::string_view path, const GltfAccessor& a) {
  using T = GltfComponentType;
  const bool is_float = a.component_type == T::kFloat;
  const bool normalized_int =
      a.normalized &&
      is_one_of(a.component_type, {T::kByte, T::kUnsignedByte, T::kShort, T::kUnsignedShort});
  if (path == "translation" || path == "scale") {
    return a.type == GltfAccessorType::kVec3 &&
           (is_float || (r.mesh_quantization && a.component_type != T::kUnsignedInt));
  }
  if (path == "rotation") return a.type == GltfAccessorType::kVec4 && (is_float || normalized_int);
  return a.type == GltfAccessorType::kScalar && (is_float || normalized_int);  // weights
}

struct ChannelTarget {
  int node;
  std::string path;
  size_t channel;
};

void read_animation(Reader& r, const json& obj, const std::string& at, GltfAnimation* out) {
  GltfAnimation& anim = *out;
  anim.name = get_name(r.issues, obj, at);
  const json* channels = get_array(r.issues, obj, at, "channels", Need::kRequired);
  const json* samplers = get_array(r.issues, obj, at, "samplers", Need::kRequired);
  std::vector<SamplerState> states;
  if (samplers) {
    for (size_t k = 0; k < samplers->size(); ++k) {
      const std::string sat = idx(ptr(at, "samplers"), k);
      const json* s = element_object(r, *samplers, k, sat);
      states.push_back(s ? read_sampler(r, *s, sat) : SamplerState{});
    }
  }
  if (!channels) return;

  std::vector<ChannelTarget> targets;
  for (size_t c = 0; c < channels->size(); ++c) {
    const std::string cat = idx(ptr(at, "channels"), c);
    const json* ch = element_object(r, *channels, c, cat);
    if (!ch) continue;
    const size_t errors_before = r.issues.errors();
    const std::optional<int> sampler =
        get_index(r.issues, *ch, cat, "sampler", states.size(), Need::kRequired);
    const json* target = get_object(r.issues, *ch, cat, "target", Need::kRequired);
    if (!target) continue;
    const std::string tat = ptr(cat, "target");
    const std::optional<std::string> path =
        get_string(r.issues, *target, tat, "path", Need::kRequired);
    const std::optional<int> node =
        get_index(r.issues, *target, tat, "node", r.doc.nodes.size(), Need::kOptional);
    if (!path) continue;
    const bool trs = *path == "translation" || *path == "rotation" || *path == "scale";
    if (!trs && *path != "weights") {
      r.issues.warning(ptr(tat, "path"), "VALUE_NOT_IN_LIST",
                       "Invalid value " + in_quotes(*path) +
                           ". Valid values are ('translation', 'rotation', 'scale', 'weights'); "
                           "the channel is ignored.");
      continue;
    }
    if (!find(*target, "node")) {
      r.issues.warning(tat, "ANIMATION_CHANNEL_NO_NODE",
                       "The channel has no target.node and is ignored.");
      continue;
    }
    if (!node) continue;

    const GltfNode& n = r.doc.nodes[static_cast<size_t>(*node)];
    int morph_targets = 0;
    if (trs) {
      if (n.has_matrix) {
        r.issues.error(
            tat, "ANIMATION_CHANNEL_TARGET_NODE_MATRIX",
            "Animation channel cannot target TRS properties of a node with defined matrix.");
      }
      if (n.skin >= 0) {
        r.issues.warning(ptr(tat, "path"), "ANIMATION_CHANNEL_TARGET_NODE_SKIN",
                         "Animated TRS properties will not affect a skinned mesh.");
      }
    } else {
      morph_targets = n.mesh >= 0 ? r.doc.meshes[static_cast<size_t>(n.mesh)].morph_targets : 0;
      if (morph_targets == 0) {
        r.issues.error(
            tat, "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS",
            "Animation channel cannot target WEIGHTS when mesh does not have morph targets.");
      }
    }
    for (const ChannelTarget& seen : targets) {
      if (seen.node == *node && seen.path == *path) {
        r.issues.error(
            ptr(idx(ptr(at, "channels"), seen.channel), "target"), "ANIMATION_DUPLICATE_TARGETS",
            "Animation channel has the same target as channel " + std::to_string(c) + ".");
        break;
      }
    }
    targets.push_back({*node, *path, c});
    if (!sampler) continue;

    // The sampler's output against this path.
    const SamplerState& s = states[static_cast<size_t>(*sampler)];
    const GltfAccessor* in = r.accessor(s.input);
    const GltfAccessor* output = r.accessor(s.output);
    const std::string sat = ptr(cat, "sampler");
    const int width = trs ? (*path == "rotation" ? 4 : 3) : morph_targets;
    if (output) {
      if (!output_format_ok(r, *path, *output)) {
        r.issues.error(sat, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT",
                       "Invalid animation sampler output accessor format " + format_of(*output) +
                           " for path " + in_quotes(*path) + ".");
      } else if (in) {
        const uint64_t expected = uint64_t{in->count} *
                                  (s.interpolation == Interpolation::kCubicSpline ? 3 : 1) *
                                  static_cast<uint64_t>(trs ? 1 : morph_targets);
        if (expected != 0 && expected != output->count) {
          r.issues.error(sat, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
                         "Animation sampler output accessor of count " + std::to_string(expected) +
                             " expected. Found " + std::to_string(output->count) + ".");
        } else if (*path == "rotation" && output->decoded) {
          // Unit quaternions; for CUBICSPLINE only the values, not the tangents.
          const bool cubic = s.interpolation == Interpolation::kCubicSpline;
          size_t bad = 0, first = 0;
          double first_length = 0;
          for (size_t e = cubic ? 1 : 0; e < output->count; e += cubic ? 3 : 1) {
            const float* q = &output->floats[e * 4];
            const double len =
                std::sqrt(static_cast<double>(q[0]) * q[0] + static_cast<double>(q[1]) * q[1] +
                          static_cast<double>(q[2]) * q[2] + static_cast<double>(q[3]) * q[3]);
            if (!(std::fabs(len - 1.0) <= kUnitLengthThreshold) && bad++ == 0) {
              first = e;
              first_length = len;
            }
          }
          if (bad > 0) {
            r.issues.error(sat, "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
                           "Animation sampler output accessor element " + std::to_string(first) +
                               " is not of unit length: " + num(first_length) + " (" +
                               std::to_string(bad) + " in all).");
          }
        }
      }
    }
    if (r.issues.errors() != errors_before || !s.valid) continue;

    GltfChannel channel;
    channel.node = *node;
    channel.morph_weights = !trs;
    channel.property = *path == "rotation"      ? Property::kRotation
                       : *path == "scale"       ? Property::kScale
                       : *path == "translation" ? Property::kTranslation
                                                : Property::kWeights;
    channel.interpolation = s.interpolation;
    channel.width = width;
    channel.source_channel = static_cast<int>(c);
    channel.sampler = *sampler;
    if (!r.charge((in->floats.size() + output->floats.size()) * sizeof(float), cat)) continue;
    channel.times = in->floats;
    channel.values = output->floats;
    anim.duration = std::max(anim.duration, channel.times.back());
    anim.channels.push_back(std::move(channel));
  }
}

}  // namespace

void read_animations(Reader& r) {
  const json* array = top_array(r, "animations");
  if (!array) return;
  if (array->size() > kGltfMaxAnimations) {
    r.issues.error("/animations", "ANIMATIONS_TOO_MANY",
                   "The file has " + std::to_string(array->size()) + " animations; at most " +
                       std::to_string(kGltfMaxAnimations) + " are taken.");
    return;
  }
  r.doc.animations.resize(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string at = idx("/animations", i);
    if (const json* obj = element_object(r, *array, i, at)) {
      read_animation(r, *obj, at, &r.doc.animations[i]);
    }
  }
}

}  // namespace animpack::gltf_internal
