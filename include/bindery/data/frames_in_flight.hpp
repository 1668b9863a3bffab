// SPDX-License-Identifier: MIT
/// @file
/// bindery/data/frames_in_flight.hpp — N copies of per-frame data, so the CPU never writes a copy
/// the GPU may still read (double / triple buffering; bgfx's ChunkedScratchBuffer, the optimization
/// article's "double buffering" idea).
///
/// Frame f uses copy f % N. With N copies, the copy written in frame f is next written in frame
/// f + N, so up to N - 1 submitted frames may still be in flight on the GPU while the CPU fills
/// the current one. Data uploaded with queue.writeBuffer does not need this (writeBuffer copies at
/// call time and is ordered on the queue); it is for memory the CPU writes directly: mapped
/// staging buffers (StagingRing), or buffers mapped by the application.
///
/// No limits read. Errors: InvalidArgument (copy count 0).
#pragma once

#include "bindery/core/error.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bindery {

/// N copies of a T, one per frame in flight. T is anything movable (a buffer, an arena, a
/// struct of both). Not thread-safe.
template <class T>
class FramesInFlight {
 public:
  /// Makes `count` copies with make(i) for i in [0, count). Throws InvalidArgument for 0.
  template <class Make>
  FramesInFlight(uint32_t count, Make&& make) {
    if (count == 0) {
      throw Error(ErrorKind::InvalidArgument,
                  "FramesInFlight: copy count is 0 (need 1 for single, 2 for double, 3 for "
                  "triple buffering)");
    }
    copies_.reserve(count);
    for (uint32_t i = 0; i < count; ++i) copies_.push_back(make(i));
  }

  /// Number of copies N.
  uint32_t count() const { return static_cast<uint32_t>(copies_.size()); }
  /// Frames advanced so far (the current frame number, from 0).
  uint64_t frame() const { return frame_; }
  /// Index of the current frame's copy: frame() % count().
  uint32_t index() const { return static_cast<uint32_t>(frame_ % copies_.size()); }
  /// The copy the CPU may write this frame.
  T& current() { return copies_[index()]; }
  /// The current frame's copy, read-only.
  const T& current() const { return copies_[index()]; }
  /// Copy `i` (InvalidArgument when i >= count()).
  T& at(uint32_t i) {
    if (i >= copies_.size()) {
      throw Error(ErrorKind::InvalidArgument,
                  "FramesInFlight::at: index " + std::to_string(i) + " >= copy count " +
                      std::to_string(copies_.size()));
    }
    return copies_[i];
  }
  /// Ends the current frame (call after its submit); returns the next frame's copy.
  T& advance() {
    ++frame_;
    return current();
  }

 private:
  std::vector<T> copies_;
  uint64_t frame_ = 0;
};

}  // namespace bindery
