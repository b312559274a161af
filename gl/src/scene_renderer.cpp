#include "animpack/gl/scene_renderer.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace animpack::gl {

namespace {

// The linear base colours of parts without a material, by object index (the tracer's
// object_color() palette, so both draw a material-less file alike).
constexpr Vec4 kColors[] = {{0.90f, 0.55f, 0.24f, 1}, {0.35f, 0.67f, 0.90f, 1},
                            {0.55f, 0.82f, 0.43f, 1}, {0.86f, 0.43f, 0.67f, 1},
                            {0.85f, 0.80f, 0.35f, 1}, {0.60f, 0.52f, 0.88f, 1},
                            {0.40f, 0.80f, 0.78f, 1}, {0.88f, 0.40f, 0.40f, 1}};

bool finite_span(std::span<const Mat4> s) {
  for (const Mat4& m : s) {
    for (float f : m.m) {
      if (!std::isfinite(f)) return false;
    }
  }
  return true;
}

// Texture coordinates from the part's x, y bounds (the pack carries none): u right, v down.
std::vector<float> bounds_uvs(std::span<const Vec3> positions) {
  float lo_x = positions[0].x, hi_x = lo_x, lo_y = positions[0].y, hi_y = lo_y;
  for (const Vec3& p : positions) {
    lo_x = std::min(lo_x, p.x);
    hi_x = std::max(hi_x, p.x);
    lo_y = std::min(lo_y, p.y);
    hi_y = std::max(hi_y, p.y);
  }
  const float w = hi_x - lo_x, h = hi_y - lo_y;
  std::vector<float> uvs(positions.size() * 2);
  for (size_t v = 0; v < positions.size(); ++v) {
    uvs[2 * v] = w > 0 ? (positions[v].x - lo_x) / w : 0.0f;
    uvs[2 * v + 1] = h > 0 ? (hi_y - positions[v].y) / h : 0.0f;
  }
  return uvs;
}

// A pack slot as the renderer takes it: its texture's handle, uv set, sampler, transform.
MaterialTexture slot_of(const TextureSlot& slot, std::span<const TextureHandle> textures) {
  MaterialTexture t;
  if (slot.texture < 0) return t;
  t.texture = textures[static_cast<size_t>(slot.texture)];
  t.uv_set = slot.uv_set;
  t.sampler = Sampler{slot.wrap_s, slot.wrap_t, slot.mag_filter, slot.min_filter};
  t.has_transform = slot.has_transform;
  t.transform = slot.transform;
  return t;
}

MaterialDesc material_of(const MaterialInfo& m, std::span<const TextureHandle> textures) {
  MaterialDesc d;
  d.base_color = m.base_color;
  d.base_color_texture = slot_of(m.base_color_texture, textures);
  d.metallic = m.metallic;
  d.roughness = m.roughness;
  d.metallic_roughness_texture = slot_of(m.metallic_roughness_texture, textures);
  d.normal_texture = slot_of(m.normal_texture, textures);
  d.normal_scale = m.normal_scale;
  d.occlusion_texture = slot_of(m.occlusion_texture, textures);
  d.occlusion_strength = m.occlusion_strength;
  d.emissive = m.emissive;
  d.emissive_texture = slot_of(m.emissive_texture, textures);
  d.emissive_strength = m.emissive_strength;
  d.alpha_mode = m.alpha_mode;
  d.alpha_cutoff = m.alpha_cutoff;
  d.double_sided = m.double_sided;
  return d;
}

// Whether every texture a material names is one of the pack's `count`.
bool slots_in_range(const MaterialInfo& m, size_t count) {
  for (const TextureSlot* s : {&m.base_color_texture, &m.metallic_roughness_texture,
                               &m.normal_texture, &m.occlusion_texture, &m.emissive_texture}) {
    if (s->texture >= 0 && static_cast<size_t>(s->texture) >= count) return false;
  }
  return true;
}

Mat4 scale_x(const Mat4& m, float s) {
  Mat4 out = m;
  for (int r = 0; r < 4; ++r) out.m[r] = m.m[r] * s;
  return out;
}

// A placed frame's card (see the header): the unit card moved and scaled onto the
// trimmed box, in card units of the source box's height, x right and y up from the pivot.
Mat4 placed_card(const Mat4& m, const FramePlacement& p) {
  const auto h = static_cast<float>(p.source.height);
  const auto tx = static_cast<float>(p.trimmed.x), ty = static_cast<float>(p.trimmed.y);
  const auto tw = static_cast<float>(p.trimmed.width), th = static_cast<float>(p.trimmed.height);
  const float cx = (tx + 0.5f * tw - p.pivot_x) / h;
  const float cy = (p.pivot_y - ty - 0.5f * th) / h;
  Mat4 out = m;
  // out = m * translate(cx, cy, 0) * scale(tw / h, th / h, 1); columns are m.m[0..3] * 4.
  for (int r = 0; r < 4; ++r) {
    out.m[12 + r] = m.m[r] * cx + m.m[4 + r] * cy + m.m[12 + r];
    out.m[r] = m.m[r] * (tw / h);
    out.m[4 + r] = m.m[4 + r] * (th / h);
  }
  return out;
}

// True when a frame's placement is the default one of its rect (untrimmed, unrotated,
// pivot at the centre): such a card is drawn exactly as before Step 7.
bool is_default_placement(const FramePlacement& p, const PixelRect& rect) {
  return !p.rotated && p.source.width == rect.width && p.source.height == rect.height &&
         p.trimmed.x == 0 && p.trimmed.y == 0 && p.trimmed.width == rect.width &&
         p.trimmed.height == rect.height && p.pivot_x == 0.5f * static_cast<float>(rect.width) &&
         p.pivot_y == 0.5f * static_cast<float>(rect.height);
}

}  // namespace

struct SceneRenderer::Impl {
  struct Drawn {
    InstanceHandle instance;
    bool drawn = false;
  };
  struct Object {
    std::vector<Drawn> parts;  // one per part of the object's mesh
    Drawn card;                // the default card (a sprite without a mesh)
    Mat4 previous_model;
    bool has_previous = false;
    // The morph weights of this draw and the previous one (motion vectors), swapped after
    // each draw; their capacity stays, so a steady scene allocates nothing.
    std::vector<float> weights, previous_weights;
    bool has_previous_weights = false;
  };

  Renderer* renderer = nullptr;
  const Pack* pack = nullptr;
  SceneOptions options;
  std::vector<MeshHandle> part_meshes;  // one per pack part
  std::vector<TextureHandle> sheets;    // one per sprite sheet
  std::vector<TextureHandle> textures;  // one per pack texture
  std::vector<MaterialDesc> materials;  // one per pack material
  MaterialDesc fallback;                // parts without one (the object's colour goes in)
  MeshHandle card;
  MeshHandle rotated_card;      // the card with its uvs turned (rotated frames)
  std::vector<Object> objects;  // one per pack object
  std::vector<InstancePose> poses;
  std::vector<uint8_t> seen;

  ~Impl() {
    if (renderer == nullptr) return;
    for (Object& o : objects) {
      for (Drawn& d : o.parts) {
        if (d.instance) (void)renderer->destroy_instance(d.instance);
      }
      if (o.card.instance) (void)renderer->destroy_instance(o.card.instance);
    }
    for (MeshHandle m : part_meshes) {
      if (m) (void)renderer->release_mesh(m);
    }
    if (card) (void)renderer->release_mesh(card);
    if (rotated_card) (void)renderer->release_mesh(rotated_card);
    for (TextureHandle t : sheets) {
      if (t) (void)renderer->release_texture(t);
    }
    for (TextureHandle t : textures) {
      if (t) (void)renderer->release_texture(t);
    }
  }

  // Creates or updates the instance `d` with desc and marks it drawn.
  Result<void> place(Drawn& d, const InstanceDesc& desc) {
    if (!d.instance) {
      Result<InstanceHandle> h = renderer->create_instance(desc);
      if (!h) return h.error();
      d.instance = *h;
    } else if (auto r = renderer->update_instance(d.instance, desc); !r) {
      return r;
    }
    d.drawn = true;
    return ok();
  }

  Result<void> check(const Posed& posed) {
    seen.assign(pack->objects().size(), 0);
    for (size_t i = 0; i < posed.objects.size(); ++i) {
      const PosedObject& o = posed.objects[i];
      if (o.object < 0 || static_cast<size_t>(o.object) >= pack->objects().size()) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "posed object %zu: object %d outside the "
                           "pack's %zu",
                           i, o.object, pack->objects().size());
      }
      if (seen[static_cast<size_t>(o.object)] != 0) {
        return Error::make(ErrorCode::kInvalidArgument, "posed object %zu: object %d twice", i,
                           o.object);
      }
      seen[static_cast<size_t>(o.object)] = 1;
      const ObjectInfo& info = pack->objects()[static_cast<size_t>(o.object)];
      if (o.mesh != info.mesh) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "posed object %d: mesh %d, but the object's mesh is %d", o.object,
                           o.mesh, info.mesh);
      }
      const int sheet = info.animated ? info.animation.sprite_sheet : -1;
      if (o.sprite_sheet != -1 && o.sprite_sheet != sheet) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "posed object %d: sprite sheet %d, but the object's is %d", o.object,
                           o.sprite_sheet, sheet);
      }
      if (o.sprite_sheet >= 0) {
        const Atlas& atlas = pack->sprite_sheets()[static_cast<size_t>(o.sprite_sheet)].atlas();
        if (o.sprite_frame >= atlas.frame_count()) {
          return Error::make(ErrorCode::kBadFrame, "posed object %d: frame %u of a %u-frame atlas",
                             o.object, o.sprite_frame, atlas.frame_count());
        }
      }
      if (!finite_span({&o.model, 1}) || !finite_span(o.palette) ||
          !finite_span(o.previous_palette)) {
        return Error::make(ErrorCode::kInvalidArgument,
                           "posed object %d: a non-finite model or palette", o.object);
      }
      if (!o.previous_palette.empty() && o.previous_palette.size() != o.palette.size()) {
        return Error::make(ErrorCode::kSizeMismatch,
                           "posed object %d: %zu previous matrices for %zu joints", o.object,
                           o.previous_palette.size(), o.palette.size());
      }
      if (o.mesh >= 0 && !o.morph_weights.empty()) {
        const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(o.mesh)];
        const size_t count = mesh.rig >= 0 ? pack->rig(mesh.rig).morph_weight_count() : 0;
        if (o.morph_weights.size() != count) {
          return Error::make(ErrorCode::kSizeMismatch,
                             "posed object %d: %zu morph weights, its rig has %zu", o.object,
                             o.morph_weights.size(), count);
        }
      }
      if (o.mesh < 0 || o.palette.empty()) continue;
      const MeshInfo& mesh = pack->meshes()[static_cast<size_t>(o.mesh)];
      if (mesh.rig >= 0) {
        const auto joints = static_cast<size_t>(pack->rig(mesh.rig).skeleton().joint_count());
        if (o.palette.size() < joints) {
          return Error::make(ErrorCode::kBadJointIndex,
                             "posed object %d: palette of %zu joints, its rig has %zu", o.object,
                             o.palette.size(), joints);
        }
      }
      for (int k = 0; k < mesh.part_count; ++k) {
        const PartInfo& part = pack->parts()[static_cast<size_t>(mesh.first_part + k)];
        if (part.joint >= 0 && static_cast<size_t>(part.joint) >= o.palette.size()) {
          return Error::make(ErrorCode::kBadJointIndex,
                             "posed object %d: part %d rides joint %d of a %zu-joint palette",
                             o.object, mesh.first_part + k, part.joint, o.palette.size());
        }
      }
    }
    return ok();
  }
};

SceneRenderer::SceneRenderer() = default;
SceneRenderer::SceneRenderer(SceneRenderer&&) noexcept = default;
SceneRenderer& SceneRenderer::operator=(SceneRenderer&&) noexcept = default;
SceneRenderer::~SceneRenderer() = default;

Result<SceneRenderer> SceneRenderer::create(Renderer* renderer, const Pack* pack,
                                            const SceneOptions& options) {
  if (renderer == nullptr || pack == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "SceneRenderer::create: null renderer or pack");
  }
  SceneRenderer s;
  s.impl_ = std::make_unique<Impl>();
  Impl& im = *s.impl_;
  im.renderer = renderer;
  im.pack = pack;
  im.options = options;
  // Decode everything first, so that a bad pack fails before any GL call.
  std::vector<PartStreams> streams;
  for (size_t p = 0; p < pack->parts().size(); ++p) {
    Result<PartStreams> r = pack->part_streams(static_cast<int>(p));
    if (!r) return r.error();
    streams.push_back(*r);
  }
  std::vector<std::span<const uint8_t>> pixels;
  for (size_t k = 0; k < pack->sprite_sheets().size(); ++k) {
    Result<std::span<const uint8_t>> r = pack->sprite_pixels(static_cast<int>(k));
    if (!r) return r.error();
    pixels.push_back(*r);
  }
  std::vector<std::span<const uint8_t>> texels;
  for (size_t k = 0; k < pack->textures().size(); ++k) {
    Result<std::span<const uint8_t>> r = pack->texture_pixels(static_cast<int>(k));
    if (!r) return r.error();
    texels.push_back(*r);
  }
  for (size_t m = 0; m < pack->materials().size(); ++m) {
    if (!slots_in_range(pack->materials()[m], texels.size())) {
      return Error::make(ErrorCode::kBadPack, "material %zu names a texture outside the pack's %zu",
                         m, texels.size());
    }
  }
  // Meshes shown as sprite cards keep the uvs of their x, y bounds (see the header).
  std::vector<uint8_t> card_mesh(pack->meshes().size(), 0);
  for (const ObjectInfo& o : pack->objects()) {
    if (o.mesh >= 0 && o.animated && o.animation.sprite_sheet >= 0) {
      card_mesh[static_cast<size_t>(o.mesh)] = 1;
    }
  }
  for (size_t p = 0; p < streams.size(); ++p) {
    const PartStreams& st = streams[p];
    std::vector<float> uvs;
    if (card_mesh[static_cast<size_t>(pack->parts()[p].mesh)] != 0) {
      uvs = bounds_uvs(st.positions);
    } else {
      uvs.reserve(st.texcoords0.size() * 2);
      for (const Vec2& uv : st.texcoords0) {
        uvs.push_back(uv.x);
        uvs.push_back(uv.y);
      }
    }
    MeshData data{st.positions, st.normals, st.tangents, uvs, st.indices};
    data.texcoords1 = st.texcoords1;
    data.colors = st.colors;
    data.morph = st.morph;
    Result<MeshHandle> mesh =
        pack->parts()[p].skinned
            ? renderer->upload_skinned_mesh(data, {st.joints, st.weights, st.joints1, st.weights1})
            : renderer->upload_mesh(data);
    if (!mesh) return mesh.error();
    im.part_meshes.push_back(*mesh);
  }
  for (size_t k = 0; k < pixels.size(); ++k) {
    const Size size = pack->sprite_sheets()[k].atlas().size();
    TextureOptions sprite;
    sprite.mipmaps = false;  // sampled nearest from level 0
    Result<TextureHandle> t = renderer->upload_texture(pixels[k], size.width, size.height, sprite);
    if (!t) return t.error();
    im.sheets.push_back(*t);
  }
  // Each pack texture once, in its colour space, with mipmaps; the slots name samplers.
  for (size_t k = 0; k < texels.size(); ++k) {
    const TextureInfo& info = pack->textures()[k];
    TextureOptions stored;
    stored.color_space = info.color_space;
    Result<TextureHandle> t = renderer->upload_texture(texels[k], info.width, info.height, stored);
    if (!t) return t.error();
    im.textures.push_back(*t);
  }
  for (const MaterialInfo& m : pack->materials())
    im.materials.push_back(material_of(m, im.textures));
  im.fallback = material_of(pack->material(-1), im.textures);
  im.fallback.metallic = 0;
  im.fallback.roughness = 1;
  const Vec3 corners[4] = {{-0.5f, -0.5f, 0}, {0.5f, -0.5f, 0}, {0.5f, 0.5f, 0}, {-0.5f, 0.5f, 0}};
  const Vec3 normals[4] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  const float card_uvs[8] = {0, 1, 1, 1, 1, 0, 0, 0};
  const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
  Result<MeshHandle> card = renderer->upload_mesh({corners, normals, {}, card_uvs, indices});
  if (!card) return card.error();
  im.card = *card;
  // A rotated frame's stored pixels are the drawn ones turned 90 degrees clockwise: the
  // drawn (u, v) is stored at (1 - v, u).
  const float rotated_uvs[8] = {0, 0, 0, 1, 1, 1, 1, 0};
  Result<MeshHandle> rotated = renderer->upload_mesh({corners, normals, {}, rotated_uvs, indices});
  if (!rotated) return rotated.error();
  im.rotated_card = *rotated;
  im.objects.resize(pack->objects().size());
  for (size_t o = 0; o < im.objects.size(); ++o) {
    const int mesh = pack->objects()[o].mesh;
    if (mesh >= 0) {
      im.objects[o].parts.resize(
          static_cast<size_t>(pack->meshes()[static_cast<size_t>(mesh)].part_count));
    }
  }
  return s;
}

Result<void> SceneRenderer::draw(const Posed& posed, const View& view) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty scene renderer");
  Impl& im = *impl_;
  if (auto r = check_view(view); !r) return r;
  if (auto r = im.check(posed); !r) return r;
  for (Impl::Object& o : im.objects) {
    for (Impl::Drawn& d : o.parts) d.drawn = false;
    o.card.drawn = false;
  }
  im.poses.clear();
  for (const PosedObject& po : posed.objects) {
    Impl::Object& obj = im.objects[static_cast<size_t>(po.object)];
    const Mat4 previous_model = obj.has_previous ? obj.previous_model : po.model;
    std::span<const Mat4> previous_palette =
        po.previous_palette.empty() ? po.palette : po.previous_palette;
    obj.weights.assign(po.morph_weights.begin(), po.morph_weights.end());
    const std::vector<float>& previous_weights =
        obj.has_previous_weights && obj.previous_weights.size() == obj.weights.size()
            ? obj.previous_weights
            : obj.weights;
    InstanceDesc desc;
    desc.id = object_id(po.object);
    desc.color = kColors[static_cast<size_t>(po.object) % std::size(kColors)];
    if (po.sprite_sheet >= 0) {
      const Atlas& atlas = im.pack->sprite_sheets()[static_cast<size_t>(po.sprite_sheet)].atlas();
      desc.texture = im.sheets[static_cast<size_t>(po.sprite_sheet)];
      desc.uv = *atlas.uv(po.sprite_frame);  // checked above
    }
    if (po.mesh >= 0) {
      const MeshInfo& mesh = im.pack->meshes()[static_cast<size_t>(po.mesh)];
      for (int k = 0; k < mesh.part_count; ++k) {
        const int part_index = mesh.first_part + k;
        const PartInfo& part = im.pack->parts()[static_cast<size_t>(part_index)];
        desc.mesh = im.part_meshes[static_cast<size_t>(part_index)];
        if (po.sprite_sheet < 0) {
          if (part.material >= 0 && static_cast<size_t>(part.material) < im.materials.size()) {
            desc.material = im.materials[static_cast<size_t>(part.material)];
          } else {
            desc.material = im.fallback;
            desc.material->base_color = desc.color;
          }
        }
        desc.model = po.model;
        desc.previous_model = previous_model;
        if (part.joint >= 0 && !po.palette.empty()) {
          const auto j = static_cast<size_t>(part.joint);
          desc.model = mul_affine(po.model, po.palette[j]);
          desc.previous_model = mul_affine(previous_model, previous_palette[j]);
        }
        Impl::Drawn& d = obj.parts[static_cast<size_t>(k)];
        if (auto r = im.place(d, desc); !r) return r;
        // The part's morph set's weights, when the object's pose has them.
        std::span<const float> weights, previous;
        if (part.morph_set >= 0 && !obj.weights.empty() && mesh.rig >= 0) {
          const MorphSet& set =
              im.pack->rig(mesh.rig).morph_sets()[static_cast<size_t>(part.morph_set)];
          weights = std::span<const float>(obj.weights).subspan(set.first, set.size());
          previous = std::span<const float>(previous_weights).subspan(set.first, set.size());
        }
        if (part.skinned && !po.palette.empty()) {
          im.poses.push_back({d.instance, po.palette, previous_palette, weights, previous});
        } else if (!weights.empty() && !part.skinned) {
          im.poses.push_back({d.instance, {}, {}, weights, previous});
        }
      }
    } else if (po.sprite_sheet >= 0 && im.options.cardless_sprites) {
      const Atlas& atlas = im.pack->sprite_sheets()[static_cast<size_t>(po.sprite_sheet)].atlas();
      const PixelRect frame = atlas.frames()[po.sprite_frame];
      const FramePlacement placement = *atlas.placement(po.sprite_frame);  // checked above
      if (is_default_placement(placement, frame)) {
        const float aspect = static_cast<float>(frame.width) / static_cast<float>(frame.height);
        desc.mesh = im.card;
        desc.model = scale_x(po.model, aspect);
        desc.previous_model = scale_x(previous_model, aspect);
      } else {
        desc.mesh = placement.rotated ? im.rotated_card : im.card;
        desc.model = placed_card(po.model, placement);
        desc.previous_model = placed_card(previous_model, placement);
      }
      if (auto r = im.place(obj.card, desc); !r) return r;
    }
    obj.previous_model = po.model;
    obj.has_previous = true;
  }
  // Drop the instances of what this snapshot does not draw.
  auto drop = [&](Impl::Drawn& d) {
    if (!d.instance || d.drawn) return;
    (void)im.renderer->destroy_instance(d.instance);
    d.instance = {};
  };
  for (Impl::Object& o : im.objects) {
    for (Impl::Drawn& d : o.parts) drop(d);
    drop(o.card);
  }
  if (auto r = im.renderer->set_poses(im.poses); !r) return r;
  for (const PosedObject& po : posed.objects) {
    Impl::Object& obj = im.objects[static_cast<size_t>(po.object)];
    std::swap(obj.weights, obj.previous_weights);
    obj.has_previous_weights = !obj.previous_weights.empty();
  }
  return im.renderer->render(view);
}

Result<std::vector<uint32_t>> SceneRenderer::render_ids(const Posed& posed, const Camera& camera,
                                                        uint32_t width, uint32_t height) {
  if (!impl_) return Error::make(ErrorCode::kInvalidArgument, "empty scene renderer");
  View view;
  view.camera = camera;
  view.width = width;
  view.height = height;
  if (auto r = draw(posed, view); !r) return r.error();
  return impl_->renderer->read_ids();
}

}  // namespace animpack::gl
