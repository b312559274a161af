#include "skin_store.h"

#include <algorithm>
#include <cstring>

namespace animpack::gl {

namespace {

constexpr uint32_t kMinRecords = 4096;
constexpr uint32_t kMinMatrices = 64;

uint64_t bytes_for(uint64_t records, uint64_t matrices) {
  return records * SkinStore::kRecordBytes + matrices * SkinStore::kMatrixBytes;
}

}  // namespace

SkinStore::~SkinStore() = default;  // GL objects: destroy(), with the context current

void SkinStore::init(uint64_t max_bytes) {
  max_bytes_ = max_bytes;
  resize(0, kMinMatrices);
}

void SkinStore::destroy() {
  if (buffer_ != 0) glDeleteBuffers(1, &buffer_);
  buffer_ = 0;
}

bool SkinStore::fits_records(uint64_t vertices) const {
  uint64_t records = records_.capacity();
  if (records_.largest_free() < vertices) records += vertices;  // grown at the end
  return records <= UINT32_MAX / 4 && bytes_for(records, palette_capacity_) <= max_bytes_;
}

bool SkinStore::fits_palettes(uint64_t matrices) const {
  return matrices <= UINT32_MAX / 8 &&
         bytes_for(records_.capacity(), std::max<uint64_t>(matrices, 1)) <= max_bytes_;
}

void SkinStore::resize(uint32_t record_capacity, uint32_t palette_capacity) {
  const uint64_t bytes = bytes_for(record_capacity, palette_capacity);
  GLuint next = 0;
  glCreateBuffers(1, &next);
  glNamedBufferData(next, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_DRAW);
  const uint32_t old_records = records_.capacity();
  if (buffer_ != 0 && old_records > 0) {
    glCopyNamedBufferSubData(buffer_, next, 0, 0,
                             static_cast<GLsizeiptr>(uint64_t{old_records} * kRecordBytes));
  }
  if (buffer_ != 0) glDeleteBuffers(1, &buffer_);
  buffer_ = next;
  buffer_bytes_ = bytes;
  if (record_capacity > old_records) (void)records_.grow(record_capacity);
  palette_capacity_ = palette_capacity;
  if (!palettes_.empty()) {
    glNamedBufferSubData(buffer_, static_cast<GLintptr>(uint64_t{record_capacity} * kRecordBytes),
                         static_cast<GLsizeiptr>(palettes_.size() * sizeof(Mat4)),
                         palettes_.data());
  }
}

uint32_t SkinStore::add_records(std::span<const JointIndices> joints, std::span<const Vec4> weights,
                                std::span<const JointIndices> joints1,
                                std::span<const Vec4> weights1) {
  const bool eight = !joints1.empty();
  const auto vertices = static_cast<uint32_t>(joints.size());
  const uint32_t count = eight ? 2 * vertices : vertices;
  Result<uint32_t> first = records_.allocate(count);
  if (!first) {
    // Grow: at least double, and enough for this mesh at the end of the buffer.
    const uint64_t wanted = std::max<uint64_t>(
        {uint64_t{records_.capacity()} * 2, uint64_t{records_.capacity()} + count, kMinRecords});
    uint64_t capacity = wanted;
    while (capacity > records_.capacity() + uint64_t{count} &&
           bytes_for(capacity, palette_capacity_) > max_bytes_) {
      capacity = std::max<uint64_t>(records_.capacity() + uint64_t{count}, capacity * 3 / 4);
    }
    resize(static_cast<uint32_t>(capacity), palette_capacity_);
    first = records_.allocate(count);
  }
  std::vector<uint32_t> words(size_t{count} * 8);
  auto put = [](uint32_t* w, const JointIndices& j, const Vec4& weight) {
    w[0] = uint32_t{j.j[0]} | (uint32_t{j.j[1]} << 16);
    w[1] = uint32_t{j.j[2]} | (uint32_t{j.j[3]} << 16);
    w[2] = 0;
    w[3] = 0;
    std::memcpy(&w[4], &weight, sizeof(Vec4));
  };
  const size_t stride = eight ? 16 : 8;
  for (uint32_t v = 0; v < vertices; ++v) {
    put(&words[v * stride], joints[v], weights[v]);
    if (eight) put(&words[v * stride + 8], joints1[v], weights1[v]);
  }
  glNamedBufferSubData(buffer_, static_cast<GLintptr>(uint64_t{*first} * kRecordBytes),
                       static_cast<GLsizeiptr>(words.size() * 4), words.data());
  return *first;
}

void SkinStore::release_records(uint32_t first, uint32_t count) {
  (void)records_.release(first, count);
}

void SkinStore::set_palettes(std::span<const Mat4> matrices) {
  palettes_.assign(matrices.begin(), matrices.end());
  if (matrices.size() > palette_capacity_) {
    const uint64_t wanted = std::max<uint64_t>(matrices.size(), uint64_t{palette_capacity_} * 2);
    const uint64_t capacity =
        bytes_for(records_.capacity(), wanted) <= max_bytes_ ? wanted : matrices.size();
    resize(records_.capacity(), static_cast<uint32_t>(capacity));  // writes the palettes
    return;
  }
  if (!palettes_.empty()) {
    glNamedBufferSubData(
        buffer_, static_cast<GLintptr>(uint64_t{records_.capacity()} * kRecordBytes),
        static_cast<GLsizeiptr>(palettes_.size() * sizeof(Mat4)), palettes_.data());
  }
}

}  // namespace animpack::gl
