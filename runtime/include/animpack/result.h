// Errors as values for the runtime's API: nothing is thrown across it.
//
//   animpack::Result<int> r = rig.find_clip("Walk");
//   if (!r) std::fprintf(stderr, "%s\n", r.error().message());
//   int clip = *r;
//
// Result<T> is shaped like std::expected<T, Error> (has_value, value, error,
// operator bool, operator*) so that a later switch to std::expected is mechanical.
// An Error carries a code (what tests assert on) and a short message held inline, so
// that making one never allocates.
#pragma once

#include <cassert>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <new>
#include <type_traits>
#include <utility>

namespace animpack {

// Every error the runtime reports. Stable numbers: tools and tests may print them.
enum class ErrorCode : uint16_t {
  kOk = 0,
  kInvalidArgument = 1,      // a size, count or option out of its documented range
  kUnknownClip = 2,          // a clip name or index the rig or sheet does not have
  kBadWeight = 3,            // a blend weight that is negative, NaN or out of range
  kBadSpeed = 4,             // a speed that is negative or not finite
  kBadStart = 5,             // a start offset that is negative or not finite
  kNoSuchLayer = 6,          // a LayerId that no longer names a playing layer
  kNothingPlaying = 7,       // blend() with no mix to add a layer to
  kTooManyLayers = 8,        // more than kMaxLayers layers in one mix
  kBadSkeleton = 9,          // parents after children, mismatched arrays
  kBadClip = 10,             // key times not ascending, value counts inconsistent
  kBadAtlas = 11,            // a frame outside the image, a zero-sized cell
  kBadFrame = 12,            // a frame index out of range
  kSizeMismatch = 13,        // spans of different lengths where they must match
  kBadJointIndex = 14,       // a vertex joint index outside the palette
  kBadTickRate = 15,         // a tick rate that is not positive
  kBadPack = 16,             // a pack that fails verification (later steps)
  kIo = 17,                  // a file that cannot be opened or mapped (later steps)
  kUnknownParameter = 18,    // a state machine parameter name it does not declare
  kWrongParameterKind = 19,  // a float set as a bool, a trigger fired that is a float...
  kBadParameterValue = 20,   // a value outside the parameter's range or its use's range
  kUnknownState = 21,        // a state name the state machine does not have
  kBadGraph = 22,            // a state machine definition that fails GraphDef::validate
  kBadIk = 23,               // an IK solver definition IkSet::create refuses
  kUnknownMorphTarget = 24,  // a morph target name (or index) the rig does not have
  kBadMorph = 25,            // a morph set or morph delta stream that fails its checks
  kNoThread = 26,            // the system would not start a thread (ThreadPool, jobs.h)
};

// The name of a code, e.g. "unknown_clip".
const char* error_code_name(ErrorCode code);

// An error: a code plus a message of at most kMaxMessage - 1 characters (longer ones
// are cut). Trivially copyable; building one never allocates.
class Error {
 public:
  static constexpr int kMaxMessage = 120;

  Error() = default;
  explicit Error(ErrorCode code) : code_(code) {}

  // printf-style message, e.g. Error::make(ErrorCode::kUnknownClip, "no clip %s", name).
  [[gnu::format(printf, 2, 3)]] static Error make(ErrorCode code, const char* format, ...) {
    Error e(code);
    va_list args;
    va_start(args, format);
    std::vsnprintf(e.message_, sizeof e.message_, format, args);
    va_end(args);
    return e;
  }

  ErrorCode code() const { return code_; }
  // The message, or the code's name when none was given.
  const char* message() const { return message_[0] != '\0' ? message_ : error_code_name(code_); }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  char message_[kMaxMessage] = {};
};

// A value of type T or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(const T& value) : ok_(true) { new (&value_) T(value); }
  Result(T&& value) : ok_(true) { new (&value_) T(std::move(value)); }
  Result(const Error& error) : ok_(false), error_(error) {}
  Result(Result&& other) noexcept(std::is_nothrow_move_constructible_v<T>) : ok_(other.ok_) {
    if (ok_) {
      new (&value_) T(std::move(other.value_));
    } else {
      error_ = other.error_;
    }
  }
  Result(const Result& other) : ok_(other.ok_) {
    if (ok_) {
      new (&value_) T(other.value_);
    } else {
      error_ = other.error_;
    }
  }
  Result& operator=(Result other) {
    this->~Result();
    new (this) Result(std::move(other));
    return *this;
  }
  ~Result() {
    if (ok_) value_.~T();
  }

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }

  // Preconditions: has_value().
  T& value() & {
    assert(ok_);
    return value_;
  }
  const T& value() const& {
    assert(ok_);
    return value_;
  }
  T&& value() && {
    assert(ok_);
    return std::move(value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Preconditions: !has_value().
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  bool ok_;
  union {
    T value_;
    Error error_;
  };
};

// Result<void>: success or an Error. Success writes one byte: the Error (122 bytes) is
// constructed only by a failure, so `return ok();` costs nothing on hot paths such as
// blend_poses().
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() : ok_(true) {}
  Result(const Error& error) : ok_(false), error_(error) {}
  Result(const Result& other) : ok_(other.ok_) {
    if (!ok_) new (&error_) Error(other.error_);
  }
  Result& operator=(const Result& other) {
    ok_ = other.ok_;
    if (!ok_) new (&error_) Error(other.error_);
    return *this;
  }

  bool has_value() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  static_assert(std::is_trivially_copyable_v<Error> && std::is_trivially_destructible_v<Error>);
  bool ok_;
  union {
    Error error_;  // constructed only when !ok_
  };
};

// The success value of Result<void>, for symmetry: `return ok();`.
inline Result<void> ok() { return {}; }

}  // namespace animpack
