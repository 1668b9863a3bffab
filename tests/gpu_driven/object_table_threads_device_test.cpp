// SPDX-License-Identifier: MIT
// bindery::gpu_driven::ObjectTable written from many threads at once (issue 30): 8 threads move
// and re-material random, disjoint sets of objects between two flushes, some ids twice (the last
// value must land), over many frames with 1, 2 and 3 frames in flight and a few adds and removes
// on the owning thread between frames; after every frame the GPU table, read back when the frame
// retires, equals a CPU model kept by the test. What each flush uploads is checked against
// hand-computed bytes: nothing moved, nothing; F moved from one thread, F records exactly; from 8
// threads, F records plus the unused slots of each thread's last chunk but the last one's (at
// most 1,023 each, and at most 63 plus half of what the thread used: chunks grow from 64 to
// 1,024, doubling every second claim). Run under
// ThreadSanitizer by scripts/tsan.sh (CI).
#include "bindery/device.hpp"
#include "bindery/gpu_driven/object_table.hpp"
#include "bindery/headless/offscreen.hpp"

#include "support/device.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace bindery::gpu_driven {
namespace {

constexpr uint32_t kThreads = 8;

gpu::CommandEncoder encoder(const Device& d) {
  return gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
}

void submit(const Device& d, gpu::CommandEncoder& enc) {
  gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer raw = cb.get();
  d.submit({&raw, 1});
}

// The test's own model of one slot: what the GPU record must hold.
struct ModelObject {
  bool live = false;
  glm::mat4 world{1.0f};
  uint32_t mesh = 0, material = 0;
};

// An affine matrix (last row (0, 0, 0, 1), what a record holds) of small exactly-representable
// values (bit-exact through any copy).
glm::mat4 random_matrix(std::mt19937& rng) {
  std::uniform_int_distribution<int> v(-1000, 1000);
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) m[c][r] = float(v(rng)) * 0.25f;
  return m;
}

// Mismatching slots between the read-back table and the model (the first few reported).
int compare(const std::vector<std::byte>& bytes, const std::vector<ModelObject>& model, int frame) {
  std::vector<ObjectRecord> gpu(bytes.size() / sizeof(ObjectRecord));
  std::memcpy(gpu.data(), bytes.data(), gpu.size() * sizeof(ObjectRecord));
  int bad = 0;
  for (size_t id = 0; id < gpu.size(); ++id) {
    const ObjectRecord& g = gpu[id];
    bool ok = true;
    if (id >= model.size() || !model[id].live) {
      ok = g.flags == 0;
    } else {
      const ModelObject& m = model[id];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) ok = ok && g.world_rows[r][c] == m.world[c][r];
      ok = ok && g.mesh == m.mesh && g.material == m.material && g.flags == kObjectLive &&
           g.user == 0;
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << "frame " << frame << ": slot " << id << " differs (gpu flags " << g.flags
                    << ", mesh " << g.mesh << ")";
  }
  return bad;
}

// One thread's changes of a frame, applied to the table from that thread and afterwards to the
// model by the test (each id belongs to one thread per frame, so the order across threads does
// not matter).
struct Change {
  ObjectId id;
  bool move;
  glm::mat4 world;
  uint32_t material, mesh;
};

void run_frames(uint32_t frames_in_flight) {
  const Device& d = test::shared_device();
  ObjectTableDesc desc;
  desc.label = "threads";
  desc.initial_capacity = 1024;  // grows in the first frame
  ObjectTable table(d, desc);
  std::vector<ModelObject> model;
  std::mt19937 rng(30 + frames_in_flight);
  for (uint32_t i = 0; i < 20'000; ++i) {
    ModelObject o{true, random_matrix(rng), i % 97, i % 13};
    ASSERT_EQ(table.add(o.world, o.mesh, o.material), i);
    model.push_back(o);
  }
  struct InFlight {
    std::unique_ptr<BufferReadback> readback;
    std::vector<ModelObject> expected;
    int frame;
  };
  std::deque<InFlight> in_flight;
  int spilled_or_many_blocks = 0;
  for (int frame = 0; frame < 36; ++frame) {
    // Between frames, on the owning thread: a few removes and adds.
    if (frame > 0 && frame % 5 == 0) {
      for (int i = 0; i < 20; ++i) {
        const ObjectId id = rng() % uint32_t(model.size());
        if (!model[id].live) continue;
        table.remove(id);
        model[id].live = false;
      }
      for (int i = 0; i < 15; ++i) {
        ModelObject o{true, random_matrix(rng), uint32_t(rng() % 97), uint32_t(rng() % 13)};
        const ObjectId id = table.add(o.world, o.mesh, o.material);
        if (id >= model.size()) model.resize(id + 1);
        ASSERT_FALSE(model[id].live) << "add returned the live id " << id;
        model[id] = o;
      }
    }
    // Frames of every size: none, a few, a share, most (past the reserved blocks: heap spill).
    std::vector<ObjectId> live;
    for (ObjectId id = 0; id < model.size(); ++id)
      if (model[id].live) live.push_back(id);
    std::shuffle(live.begin(), live.end(), rng);
    static constexpr uint32_t kShares[] = {0, 5, 100, 1000, 3000, 19000, 9000, 40};
    live.resize(std::min<size_t>(live.size(), kShares[frame % 8]));
    // Each thread: a contiguous share of the shuffled ids, some twice, some re-materialed only.
    std::vector<std::vector<Change>> changes(kThreads);
    for (size_t k = 0; k < live.size(); ++k) {
      std::vector<Change>& mine = changes[k * kThreads / live.size()];
      const bool move = rng() % 8 != 0;
      mine.push_back({live[k], move, random_matrix(rng), uint32_t(rng() % 100),
                      uint32_t(rng() % 100)});
      if (rng() % 4 == 0)  // a second write of the same id in the frame
        mine.push_back({live[k], true, random_matrix(rng), mine.back().material,
                        mine.back().mesh});
    }
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < kThreads; ++t)
      threads.emplace_back([&table, &c = changes[t]] {
        for (const Change& ch : c) {
          if (ch.move) table.set_transform(ch.id, ch.world);
          table.set_material(ch.id, ch.material);
          table.set_mesh(ch.id, ch.mesh);
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::vector<Change>& c : changes)
      for (const Change& ch : c) {
        if (ch.move) model[ch.id].world = ch.world;
        model[ch.id].material = ch.material;
        model[ch.id].mesh = ch.mesh;
      }

    const uint32_t distinct = uint32_t(live.size()) + (frame > 0 && frame % 5 == 0 ? 35 : 0);
    const Counters before = d.counters();
    gpu::CommandEncoder enc = encoder(d);
    const ObjectFlushStats st = table.flush(enc.get());
    const Counters delta = d.counters() - before;
    if (frame == 0) {
      EXPECT_TRUE(st.grew);
    } else if (distinct == 0) {
      EXPECT_EQ(st.records_uploaded, 0u);
      EXPECT_EQ(delta.bytes_uploaded, 0u);
      EXPECT_EQ(delta.copy_buffer_to_buffer, 0u);
    } else {
      // Removes and adds may touch the same id (an add reusing a removed one): at most distinct.
      EXPECT_LE(st.records_uploaded - st.unused_slots, distinct) << frame;
      EXPECT_GE(st.records_uploaded - st.unused_slots, uint32_t(live.size())) << frame;
      // 8 writer threads and, on frames with adds and removes, the owning thread: all but the
      // last chunk claimed may be left with unused slots, each at most 1,023 and at most 63 plus
      // half of what its thread used (summed: 63 per thread plus half the used slots).
      const uint32_t used = st.records_uploaded - st.unused_slots;
      EXPECT_LE(st.unused_slots, 1023u * kThreads) << frame;
      EXPECT_LE(st.unused_slots, used / 2 + 63u * kThreads) << frame;
      EXPECT_EQ(st.bytes, uint64_t(st.records_uploaded) * 64);
      // Every byte: one 64-byte slot per record (the id inside) and the 256-byte header.
      EXPECT_EQ(delta.bytes_uploaded, uint64_t(st.records_uploaded) * 64 + 256) << frame;
      EXPECT_EQ(st.scatter_dispatches, 1u);
      spilled_or_many_blocks += delta.copy_buffer_to_buffer > 2;  // header + one block
    }
    auto readback =
        std::make_unique<BufferReadback>(d, uint64_t(table.capacity()) * 64, "threads readback");
    readback->record_copy(enc.get(), table.buffer());
    submit(d, enc);
    table.after_submit();
    in_flight.push_back({std::move(readback), model, frame});
    while (in_flight.size() > frames_in_flight || (frame == 35 && !in_flight.empty())) {
      InFlight f = std::move(in_flight.front());
      in_flight.pop_front();
      ASSERT_EQ(compare(f.readback->read(), f.expected, f.frame), 0)
          << frames_in_flight << " frames in flight";
    }
  }
  EXPECT_GE(spilled_or_many_blocks, 3);  // frames of more than one staging block
}

TEST(ObjectTableThreads, EightWritersOneFrameInFlight) { run_frames(1); }
TEST(ObjectTableThreads, EightWritersTwoFramesInFlight) { run_frames(2); }
TEST(ObjectTableThreads, EightWritersThreeFramesInFlight) { run_frames(3); }

// Many writers, each leaving most of its chunk unused, over frames that reuse staging blocks full
// of earlier frames' slots: 40 threads move 3 objects each (31 of their unused runs go to the
// header's skip ranges, the rest have their id words zeroed) in two frames out of three, one
// thread moving every object in order in the third; after every frame the GPU table equals the
// model, so no stale slot of an earlier frame was applied (the second frame of many writers finds
// the first frame's moved objects' old values in the slots it leaves unused).
TEST(ObjectTableThreads, FortyWritersSkipTheirUnusedSlots) {
  const Device& d = test::shared_device();
  constexpr uint32_t kObjects = 4000, kWriters = 40;
  ObjectTable table(d, ObjectTableDesc{"forty", kObjects});
  for (uint32_t i = 0; i < kObjects; ++i) table.add(glm::mat4(1.0f), 0, 0);
  {
    gpu::CommandEncoder enc = encoder(d);
    table.flush(enc.get());
    submit(d, enc);
    table.after_submit();
  }
  std::vector<float> model(kObjects, 0.0f);  // translation x of each object
  auto moved = [](uint32_t id, float x) {
    return glm::translate(glm::mat4(1.0f), glm::vec3(x, float(id), 0));
  };
  std::mt19937 rng(40);
  for (int frame = 1; frame <= 16; ++frame) {
    uint32_t expected_unused = 0;
    if (frame % 3 == 0) {
      for (uint32_t id = 0; id < kObjects; ++id) table.set_transform(id, moved(id, float(frame)));
      std::fill(model.begin(), model.end(), float(frame));
    } else {
      std::vector<uint32_t> ids(kObjects);
      for (uint32_t i = 0; i < kObjects; ++i) ids[i] = i;
      std::shuffle(ids.begin(), ids.end(), rng);
      std::vector<std::thread> threads;
      for (uint32_t t = 0; t < kWriters; ++t)
        threads.emplace_back([&, t] {
          for (uint32_t k = 0; k < 3; ++k)
            table.set_transform(ids[t * 3 + k], moved(ids[t * 3 + k], 1000.0f + float(frame)));
        });
      for (std::thread& t : threads) t.join();
      for (uint32_t i = 0; i < kWriters * 3; ++i) model[ids[i]] = 1000.0f + float(frame);
      expected_unused = (kWriters - 1) * (64 - 3);  // every chunk of 64 but the last one claimed
    }
    gpu::CommandEncoder enc = encoder(d);
    const ObjectFlushStats st = table.flush(enc.get());
    EXPECT_EQ(st.unused_slots, expected_unused) << frame;
    submit(d, enc);
    table.after_submit();
    const std::vector<std::byte> bytes = read_back_buffer(d, table.buffer(), 0, kObjects * 64);
    std::vector<ObjectRecord> gpu(kObjects);
    std::memcpy(gpu.data(), bytes.data(), bytes.size());
    for (uint32_t id = 0; id < kObjects; ++id)
      ASSERT_EQ(gpu[id].world_rows[0].w, model[id]) << "frame " << frame << " object " << id;
  }
}

// One thread writing ten tables in turn, more than its cache of 8, keeps one writer per table
// (the cache's miss finds the writer the thread owns; before, each miss registered a new writer
// and claimed a new chunk): each flush uploads exactly the moved records, none unused.
TEST(ObjectTableThreads, OneThreadWritingTenTablesInTurn) {
  const Device& d = test::shared_device();
  std::vector<std::unique_ptr<ObjectTable>> tables;
  for (int t = 0; t < 10; ++t) {
    tables.push_back(std::make_unique<ObjectTable>(d, ObjectTableDesc{"ten", 2000}));
    for (uint32_t i = 0; i < 2000; ++i) tables.back()->add(glm::mat4(1.0f), 0, 0);
    gpu::CommandEncoder enc = encoder(d);
    tables.back()->flush(enc.get());
    submit(d, enc);
    tables.back()->after_submit();
  }
  std::thread writer([&] {
    for (uint32_t i = 0; i < 1500; ++i)
      for (auto& t : tables)
        t->set_transform(i, glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)));
  });
  writer.join();
  for (auto& t : tables) {
    gpu::CommandEncoder enc = encoder(d);
    const ObjectFlushStats st = t->flush(enc.get());
    EXPECT_EQ(st.records_uploaded, 1500u);
    EXPECT_EQ(st.unused_slots, 0u);
    submit(d, enc);
    t->after_submit();
    const std::vector<std::byte> bytes = read_back_buffer(d, t->buffer(), 1499 * 64, 64);
    ObjectRecord r;
    std::memcpy(&r, bytes.data(), 64);
    EXPECT_EQ(r.world_rows[0].w, 1499.0f);
  }
}

// A frame of more than 2^20 changed objects: the scatter source grows to 2^21 slots of 64 bytes,
// 128 MiB, which is lavapipe's and the spec's default maxStorageBufferBindingSize exactly (with
// the header in the same buffer it was 256 bytes past it: a validation error at the flush).
TEST(ObjectTableThreads, AFrameAtTheBindingLimitUploads) {
  const Device& d = test::shared_device();
  const uint64_t limit = std::min(d.limits().maxStorageBufferBindingSize, d.limits().maxBufferSize);
  const uint32_t objects = (1u << 20) + 1;
  if (uint64_t(2) * objects * 64 > 2 * limit) GTEST_SKIP() << "binding limit below 2^21 slots";
  ObjectTable table(d, ObjectTableDesc{"limit", objects});
  for (uint32_t i = 0; i < objects; ++i)
    table.add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)), i, 0);
  gpu::CommandEncoder enc = encoder(d);
  const ObjectFlushStats st = table.flush(enc.get());
  EXPECT_EQ(st.records_uploaded, objects);
  submit(d, enc);
  table.after_submit();
  for (uint32_t id : {0u, 1u << 19, objects - 1}) {
    const std::vector<std::byte> bytes = read_back_buffer(d, table.buffer(), uint64_t(id) * 64, 64);
    ObjectRecord r;
    std::memcpy(&r, bytes.data(), 64);
    EXPECT_EQ(r.world_rows[0].w, float(id)) << id;
    EXPECT_EQ(r.mesh, id) << id;
    EXPECT_EQ(r.flags, kObjectLive) << id;
  }
}

// F moved from one thread: F records, a 64-byte slot each and the 256-byte header, worked out by
// hand.
TEST(ObjectTableThreads, OneWriterUploadsExactlyTheMovedRecords) {
  const Device& d = test::shared_device();
  ObjectTableDesc desc;
  desc.initial_capacity = 50'000;
  ObjectTable table(d, desc);
  for (uint32_t i = 0; i < 50'000; ++i) table.add(glm::mat4(1.0f), 0, 0);
  for (uint32_t f : {50'000u, 0u, 1u, 4'096u, 4'097u, 12'288u, 30'000u, 0u}) {
    std::thread writer([&table, f] {
      for (uint32_t i = 0; i < f; ++i)
        table.set_transform(i, glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)));
    });
    writer.join();
    const Counters before = d.counters();
    gpu::CommandEncoder enc = encoder(d);
    const ObjectFlushStats st = table.flush(enc.get());
    const Counters delta = d.counters() - before;
    EXPECT_EQ(st.records_uploaded, f);
    EXPECT_EQ(st.unused_slots, 0u);
    EXPECT_EQ(delta.bytes_uploaded, f == 0 ? 0 : uint64_t(f) * 64 + 256) << f;
    // Staging blocks of 4096, 8192, 16384, ... slots: one copy each, and the header's.
    const uint32_t blocks = f == 0 ? 0 : f <= 4096 ? 1 : f <= 12'288 ? 2 : f <= 28'672 ? 3 : 4;
    EXPECT_EQ(delta.copy_buffer_to_buffer, f == 0 ? 0 : blocks + 1) << f;
    submit(d, enc);
    table.after_submit();
  }
  const std::vector<std::byte> bytes = read_back_buffer(d, table.buffer(), 0, 30'000 * 64);
  std::vector<ObjectRecord> gpu(30'000);
  std::memcpy(gpu.data(), bytes.data(), bytes.size());
  for (uint32_t i = 0; i < 30'000; ++i) ASSERT_EQ(gpu[i].world_rows[0].w, float(i)) << i;
}

}  // namespace
}  // namespace bindery::gpu_driven
