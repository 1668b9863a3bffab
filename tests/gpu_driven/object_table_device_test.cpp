// SPDX-License-Identifier: MIT
// bindery::gpu_driven::ObjectTable on a real device (lavapipe on CPU-only machines): randomized
// add / move / re-material / remove over frames with up to three frames in flight, the GPU table
// read back after every frame and compared with a CPU model kept by this test (never the table's
// own CPU copy); what each flush uploads (records, bytes, dispatches) against hand-computed
// counts; growth and the whole-copy path; errors by kind.
#include "support/expect_kind.hpp"
#include "bindery/device.hpp"
#include "bindery/gpu_driven/object_table.hpp"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

namespace bindery::gpu_driven {
namespace {

class ObjectTableDevice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    DeviceOptions o;
    o.want_timestamp_query = false;
    device_ = std::make_unique<Device>(Device::create(o));
  }
  static void TearDownTestSuite() { device_.reset(); }
  static const Device& device() { return *device_; }

  static gpu::CommandEncoder encoder() {
    return gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(device().get(), nullptr));
  }
  static void submit(gpu::CommandEncoder& enc) {
    gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
    WGPUCommandBuffer raw = cb.get();
    device().submit({&raw, 1});
  }

 private:
  static std::unique_ptr<Device> device_;
};
std::unique_ptr<Device> ObjectTableDevice::device_;

// A MAP_READ copy of the table recorded into a frame's encoder, mapped after the submit and read
// when the frame is retired (frames in flight: the CPU keeps going meanwhile).
struct Readback {
  gpu::Buffer buffer;
  uint64_t size = 0;
  bool done = false;
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;

  void start_map() {
    WGPUBufferMapCallbackInfo info = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
    info.mode = WGPUCallbackMode_AllowProcessEvents;
    info.callback = [](WGPUMapAsyncStatus st, WGPUStringView, void* u1, void*) {
      auto* self = static_cast<Readback*>(u1);
      self->done = true;
      self->status = st;
    };
    info.userdata1 = this;
    wgpuBufferMapAsync(buffer.get(), WGPUMapMode_Read, 0, size_t(size), info);
  }

  std::vector<ObjectRecord> wait(const Device& d) {
    for (int i = 0; i < 10000 && !done; ++i) d.poll(true);
    EXPECT_TRUE(done);
    EXPECT_EQ(status, WGPUMapAsyncStatus_Success);
    std::vector<ObjectRecord> out(size / sizeof(ObjectRecord));
    if (done && status == WGPUMapAsyncStatus_Success) {
      std::memcpy(out.data(), wgpuBufferGetConstMappedRange(buffer.get(), 0, size_t(size)), size);
      wgpuBufferUnmap(buffer.get());
    }
    return out;
  }
};

std::unique_ptr<Readback> record_readback(const Device& d, WGPUCommandEncoder enc,
                                          const ObjectTable& table) {
  auto rb = std::make_unique<Readback>();
  rb->size = uint64_t(table.capacity()) * 64;
  rb->buffer = d.create_buffer("object table readback", rb->size,
                               WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  wgpuCommandEncoderCopyBufferToBuffer(enc, table.buffer(), 0, rb->buffer.get(), 0, rb->size);
  return rb;
}

std::vector<ObjectRecord> read_table(const Device& d, const ObjectTable& table) {
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  auto rb = record_readback(d, enc.get(), table);
  gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer raw = cb.get();
  d.submit({&raw, 1});
  rb->start_map();
  return rb->wait(d);
}

// The test's own model of one object: what the GPU record must hold.
struct ModelObject {
  glm::mat4 world{1.0f};
  uint32_t mesh = 0, material = 0, pipeline = 0;
};
using Model = std::map<ObjectId, ModelObject>;

// An affine matrix (last row (0, 0, 0, 1), what a record holds) of small exactly-representable
// values (bit-exact through any copy).
glm::mat4 random_matrix(std::mt19937& rng) {
  std::uniform_int_distribution<int> v(-1000, 1000);
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) m[c][r] = float(v(rng)) * 0.25f;
  return m;
}

// Compares the GPU records with the model: every live object's rows (row r = m[0..3][r]), mesh,
// material and flags (1 | pipeline << 8), user 0; every other slot (removed or never used) has
// flags 0. Returns the number of mismatching slots (and reports the first few).
int compare(const std::vector<ObjectRecord>& gpu, const Model& model, int frame) {
  int bad = 0;
  for (ObjectId id = 0; id < gpu.size(); ++id) {
    const ObjectRecord& g = gpu[id];
    auto it = model.find(id);
    bool ok = true;
    if (it == model.end()) {
      ok = g.flags == 0;
    } else {
      const ModelObject& m = it->second;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) ok = ok && g.world_rows[r][c] == m.world[c][r];
      ok = ok && g.mesh == m.mesh && g.material == m.material &&
           g.flags == (1u | (m.pipeline << 8)) && g.user == 0;
    }
    if (!ok && ++bad <= 5)
      ADD_FAILURE() << "frame " << frame << ": slot " << id << " differs (live in model: "
                    << (it != model.end()) << ", gpu flags " << g.flags << ")";
  }
  return bad;
}

// One frame of random changes applied to the table and the model alike.
struct FrameChanges {
  int adds = 0, moves = 0, removes = 0, materials = 0;
};

void apply(ObjectTable& table, Model& model, std::mt19937& rng, const FrameChanges& ch) {
  std::uniform_int_distribution<uint32_t> small(0, 99);
  for (int i = 0; i < ch.adds; ++i) {
    ModelObject o{random_matrix(rng), small(rng), small(rng), small(rng) % 4};
    const ObjectId id = table.add(o.world, o.mesh, o.material, o.pipeline);
    ASSERT_EQ(model.count(id), 0u) << "add returned the live id " << id;
    model[id] = o;
  }
  auto pick = [&]() {
    auto it = model.begin();
    std::advance(it, std::uniform_int_distribution<size_t>(0, model.size() - 1)(rng));
    return it;
  };
  for (int i = 0; i < ch.moves && !model.empty(); ++i) {
    auto it = pick();
    it->second.world = random_matrix(rng);
    table.set_transform(it->first, it->second.world);
  }
  for (int i = 0; i < ch.materials && !model.empty(); ++i) {
    auto it = pick();
    it->second.material = small(rng);
    table.set_material(it->first, it->second.material);
    it->second.mesh = small(rng);
    table.set_mesh(it->first, it->second.mesh);
  }
  for (int i = 0; i < ch.removes && !model.empty(); ++i) {
    auto it = pick();
    table.remove(it->first);
    model.erase(it);
  }
}

TEST_F(ObjectTableDevice, RandomizedFramesInFlightMatchTheModel) {
  ObjectTableDesc desc;
  desc.initial_capacity = 32;  // grows several times below
  ObjectTable table(device(), desc);
  Model model;
  std::mt19937 rng(20);
  struct InFlight {
    std::unique_ptr<Readback> rb;
    Model expected;
    int frame;
  };
  std::deque<InFlight> in_flight;
  int whole = 0, scattered = 0, grew = 0, grew_scattering = 0, empty = 0;
  for (int frame = 0; frame < 60; ++frame) {
    FrameChanges ch;
    const int n = int(model.size());
    if (frame % 9 == 4) ch.moves = n * 2;  // most objects move (~86% distinct)
    else if (frame % 9 == 7) ch = {};          // nothing changes: nothing uploaded
    else ch = {int(rng() % 40), int(rng() % 8), int(rng() % 12), int(rng() % 3)};
    apply(table, model, rng, ch);
    ASSERT_EQ(table.size(), model.size());
    ASSERT_EQ(table.id_end(), model.empty() ? 0u : model.rbegin()->first + 1);
    for (const auto& [id, o] : model) ASSERT_TRUE(table.contains(id));

    gpu::CommandEncoder enc = encoder();
    const ObjectFlushStats st = table.flush(enc.get());
    whole += st.whole_copy;
    scattered += st.scatter_dispatches;
    grew += st.grew;
    grew_scattering += st.grew && !st.whole_copy;
    empty += st.records_uploaded == 0;
    auto rb = record_readback(device(), enc.get(), table);
    submit(enc);
    table.after_submit();
    rb->start_map();
    in_flight.push_back({std::move(rb), model, frame});
    // Three frames in flight: retire the oldest only when a fourth was submitted.
    while (in_flight.size() > 3 || (frame == 59 && !in_flight.empty())) {
      InFlight f = std::move(in_flight.front());
      in_flight.pop_front();
      ASSERT_EQ(compare(f.rb->wait(device()), f.expected, f.frame), 0);
    }
  }
  EXPECT_EQ(whole, 0);  // no whole-table copy since issue 30
  EXPECT_GE(scattered, 30);
  EXPECT_GE(grew, 2);
  EXPECT_GE(grew_scattering, 1);
  EXPECT_GE(empty, 5);
  EXPECT_GE(table.generation(), 2u);
}

// Adds n objects, flushes and submits them, and waits until the GPU is done.
void fill(ObjectTable& table, uint32_t n, const Device& d) {
  for (uint32_t i = 0; i < n; ++i)
    table.add(glm::translate(glm::mat4(1.0f), glm::vec3(float(i), 0, 0)), i % 7, i % 5);
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d.get(), nullptr));
  table.flush(enc.get());
  gpu::CommandBuffer cb = gpu::CommandBuffer::acquire(wgpuCommandEncoderFinish(enc.get(), nullptr));
  WGPUCommandBuffer raw = cb.get();
  d.submit({&raw, 1});
  table.after_submit();
  d.poll(true);
}

TEST_F(ObjectTableDevice, NothingMovedUploadsNothingWhateverTheCount) {
  for (uint32_t n : {10u, 10'000u}) {
    ObjectTableDesc desc;
    desc.initial_capacity = n;
    ObjectTable table(device(), desc);
    fill(table, n, device());
    for (int frame = 0; frame < 3; ++frame) {
      const Counters before = device().counters();
      gpu::CommandEncoder enc = encoder();
      const ObjectFlushStats st = table.flush(enc.get());
      const Counters d = device().counters() - before;
      EXPECT_EQ(st.records_uploaded, 0u) << n;
      EXPECT_EQ(st.bytes, 0u) << n;
      EXPECT_EQ(st.index_bytes, 0u) << n;
      EXPECT_EQ(st.scatter_dispatches, 0u) << n;
      EXPECT_FALSE(st.whole_copy);
      EXPECT_EQ(d.bytes_uploaded, 0u) << n;
      EXPECT_EQ(d.copy_buffer_to_buffer, 0u) << n;
      EXPECT_EQ(d.buffers_created, 0u) << n;
      submit(enc);
      table.after_submit();
    }
  }
}

TEST_F(ObjectTableDevice, FMovedObjectsUploadFRecords) {
  ObjectTableDesc desc;
  desc.initial_capacity = 10'000;
  ObjectTable table(device(), desc);
  fill(table, 10'000, device());
  for (uint32_t f : {1u, 100u, 2'000u}) {  // 0.01% .. 20% < whole_copy_share 40%
    const Counters before = device().counters();
    for (uint32_t i = 0; i < f; ++i) {
      const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(0, float(f), float(i)));
      table.set_transform(i * 3, m);
      table.set_transform(i * 3, m);  // twice: still one record
    }
    gpu::CommandEncoder enc = encoder();
    const ObjectFlushStats st = table.flush(enc.get());
    const Counters d = device().counters() - before;
    EXPECT_EQ(st.records_uploaded, f);
    EXPECT_EQ(st.bytes, uint64_t(f) * 64);
    EXPECT_EQ(st.index_bytes, 256u);  // the header: count and skip ranges (ids are in the slots)
    EXPECT_EQ(st.unused_slots, 0u);          // one writer thread: its last chunk is trimmed
    EXPECT_EQ(st.scatter_dispatches, 1u);
    EXPECT_FALSE(st.whole_copy);
    EXPECT_FALSE(st.grew);
    EXPECT_EQ(d.bytes_uploaded, uint64_t(f) * 64 + 256);  // a 64-byte slot each, the header
    submit(enc);
    table.after_submit();
    const std::vector<ObjectRecord> gpu = read_table(device(), table);
    for (uint32_t i = 0; i < f; ++i) {
      ASSERT_EQ(gpu[i * 3].world_rows[1].w, float(f)) << i;  // translation y = row 1, column 3
      ASSERT_EQ(gpu[i * 3].world_rows[2].w, float(i)) << i;
    }
  }
}

// Most objects moved: still the changed records only (no CPU image to copy the table from), in
// one staging block of 4096 slots: two copies (the 256-byte header with the count into a buffer
// of its own, the slots, each with its id) and one dispatch.
TEST_F(ObjectTableDevice, MostMovedIsTheChangedRecordsInOneBlock) {
  ObjectTableDesc desc;
  desc.initial_capacity = 1000;
  ObjectTable table(device(), desc);
  fill(table, 1000, device());
  table.remove(999);  // a removed slot goes up as zeros
  for (uint32_t i = 0; i < 600; ++i)
    table.set_transform(i, glm::translate(glm::mat4(1.0f), glm::vec3(0, 0, -float(i))));
  const Counters before = device().counters();
  gpu::CommandEncoder enc = encoder();
  const ObjectFlushStats st = table.flush(enc.get());
  const Counters d = device().counters() - before;
  EXPECT_FALSE(st.whole_copy);
  EXPECT_EQ(st.records_uploaded, 601u);
  EXPECT_EQ(st.bytes, 601u * 64);
  EXPECT_EQ(st.scatter_dispatches, 1u);
  EXPECT_EQ(d.bytes_uploaded, 601u * 64 + 256);
  EXPECT_EQ(d.copy_buffer_to_buffer, 2u);  // one staging block: its header and its slots
  submit(enc);
  table.after_submit();
  const std::vector<ObjectRecord> gpu = read_table(device(), table);
  for (uint32_t i = 0; i < 999; ++i) {
    ASSERT_EQ(gpu[i].world_rows[0].w, i < 600 ? 0.0f : float(i)) << i;
    ASSERT_EQ(gpu[i].world_rows[2].w, i < 600 ? -float(i) : 0.0f) << i;
    ASSERT_EQ(gpu[i].mesh, i % 7) << i;
    ASSERT_EQ(gpu[i].material, i % 5) << i;
    ASSERT_EQ(gpu[i].flags, 1u) << i;
  }
  EXPECT_EQ(gpu[999].flags, 0u);
  EXPECT_EQ(table.id_end(), 999u);
}

// An id staged in one frame and next only many frames later gets a new slot then, whatever the
// number of frames between (the per-id state keeps a few bits of the frame count, which wrap):
// one object moves every frame, the others each once in a while at spacings of 1 to 97 frames,
// some of them re-materialed alone or after a move; after every frame the GPU table equals the
// model.
TEST_F(ObjectTableDevice, IdsStagedFramesApartGetTheirOwnSlots) {
  ObjectTableDesc desc;
  desc.initial_capacity = 16;
  ObjectTable table(device(), desc);
  std::vector<ObjectRecord> model(8);
  auto move = [&](ObjectId id, float v) {
    const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(v, float(id), 0));
    table.set_transform(id, m);
    world_to_rows(m, model[id].world_rows);
  };
  for (ObjectId id = 0; id < 8; ++id) {
    ASSERT_EQ(table.add(glm::mat4(1.0f), id, 0), id);
    world_to_rows(glm::mat4(1.0f), model[id].world_rows);
    model[id].mesh = id;
    model[id].flags = kObjectLive;
  }
  const int spacing[8] = {1, 31, 32, 33, 62, 63, 97, 5};
  for (int frame = 1; frame < 200; ++frame) {
    move(0, float(frame));
    for (ObjectId id = 1; id < 8; ++id)
      if (frame % spacing[id] == 0) {
        if (id % 2 == 0) move(id, float(frame));
        if (id >= 5) {
          table.set_material(id, uint32_t(frame));
          model[id].material = uint32_t(frame);
        }
      }
    gpu::CommandEncoder enc = encoder();
    table.flush(enc.get());
    submit(enc);
    table.after_submit();
    const std::vector<ObjectRecord> gpu = read_table(device(), table);
    for (ObjectId id = 0; id < 8; ++id) {
      for (int r = 0; r < 3; ++r)
        ASSERT_EQ(gpu[id].world_rows[r], model[id].world_rows[r])
            << "frame " << frame << " object " << id << " row " << r;
      ASSERT_EQ(gpu[id].mesh, model[id].mesh) << frame << " " << id;
      ASSERT_EQ(gpu[id].material, model[id].material) << frame << " " << id;
      ASSERT_EQ(gpu[id].flags, model[id].flags) << frame << " " << id;
    }
  }
}

TEST_F(ObjectTableDevice, GrowthKeepsUnchangedRecordsAndBumpsTheGeneration) {
  ObjectTableDesc desc;
  desc.initial_capacity = 4;
  desc.whole_copy_share = 1.0f;  // ignored since issue 30 (always the scatter): still accepted
  ObjectTable table(device(), desc);
  fill(table, 4, device());
  const WGPUBuffer first = table.buffer();
  EXPECT_EQ(table.generation(), 0u);
  const ObjectId fifth = table.add(glm::translate(glm::mat4(1.0f), glm::vec3(5, 6, 7)), 42, 43, 2);
  EXPECT_EQ(fifth, 4u);
  EXPECT_EQ(table.capacity(), 4u);  // the buffer grows at the flush
  gpu::CommandEncoder enc = encoder();
  const ObjectFlushStats st = table.flush(enc.get());
  EXPECT_TRUE(st.grew);
  EXPECT_EQ(st.records_uploaded, 1u);
  EXPECT_EQ(table.capacity(), 8u);
  EXPECT_EQ(table.generation(), 1u);
  EXPECT_NE(table.buffer(), first);
  submit(enc);
  table.after_submit();
  const std::vector<ObjectRecord> gpu = read_table(device(), table);
  ASSERT_EQ(gpu.size(), 8u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(gpu[i].world_rows[0].w, float(i)) << i;
    EXPECT_EQ(gpu[i].mesh, i % 7) << i;
    EXPECT_EQ(gpu[i].flags, 1u) << i;
  }
  EXPECT_EQ(gpu[4].world_rows[0].w, 5.0f);
  EXPECT_EQ(gpu[4].world_rows[1].w, 6.0f);
  EXPECT_EQ(gpu[4].world_rows[2].w, 7.0f);
  EXPECT_EQ(gpu[4].mesh, 42u);
  EXPECT_EQ(gpu[4].material, 43u);
  EXPECT_EQ(gpu[4].flags, 1u | (2u << 8));
  for (uint32_t i = 5; i < 8; ++i) EXPECT_EQ(gpu[i].flags, 0u) << i;
}

TEST_F(ObjectTableDevice, GrowthPastManyDoublingsInOneFlush) {
  ObjectTableDesc desc;
  desc.initial_capacity = 2;
  ObjectTable table(device(), desc);
  fill(table, 100, device());  // 2 -> 128 in one flush (a whole copy: every record changed)
  EXPECT_EQ(table.capacity(), 128u);
  const std::vector<ObjectRecord> gpu = read_table(device(), table);
  for (uint32_t i = 0; i < 100; ++i) ASSERT_EQ(gpu[i].world_rows[0].w, float(i)) << i;
  for (uint32_t i = 100; i < 128; ++i) ASSERT_EQ(gpu[i].flags, 0u) << i;
}

TEST_F(ObjectTableDevice, IdsOfRemovedObjectsAreReused) {
  ObjectTable table(device());
  const ObjectId a = table.add(glm::mat4(1.0f), 0, 0);
  const ObjectId b = table.add(glm::mat4(1.0f), 0, 0);
  table.remove(a);
  EXPECT_FALSE(table.contains(a));
  EXPECT_EQ(table.add(glm::mat4(1.0f), 1, 1), a);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.id_end(), b + 1);
}

// Issue 26: a frame loop that never called after_submit() held a new staging block per frame,
// silently. With at most 3 uploading flushes between after_submit() calls, the 4th is refused.
TEST_F(ObjectTableDevice, FlushWithoutAfterSubmitIsRefusedAfterTheAllowedCount) {
  ObjectTableDesc desc;
  desc.max_flushes_without_after_submit = 3;
  ObjectTable table(device(), desc);
  const ObjectId id = table.add(glm::mat4(1.0f), 0, 0);
  auto frame = [&](float x) {
    table.set_transform(id, glm::translate(glm::mat4(1.0f), glm::vec3(x, 0, 0)));
    gpu::CommandEncoder enc = encoder();
    table.flush(enc.get());
    submit(enc);
  };
  for (int f = 0; f < 3; ++f) frame(float(f));  // flushes 1..3, no after_submit()
  try {
    frame(3.0f);
    ADD_FAILURE() << "a 4th flush without after_submit() was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::FrameProtocol);
    EXPECT_NE(std::string(e.what()).find("after_submit()"), std::string::npos) << e.what();
  }
  table.after_submit();  // the protocol again: any number of frames
  for (int f = 0; f < 10; ++f) {
    frame(float(f));
    table.after_submit();
  }
  // A flush with nothing to upload holds no staging block: not counted, never refused.
  for (int f = 0; f < 5; ++f) {
    gpu::CommandEncoder idle = encoder();
    EXPECT_EQ(table.flush(idle.get()).records_uploaded, 0u);
  }
  device().poll(true);
  EXPECT_EQ(read_table(device(), table)[id].world_rows[0].w, 9.0f);  // translation x of frame 9
  ObjectTableDesc zero;
  zero.max_flushes_without_after_submit = 0;
  EXPECT_KIND(ObjectTable(device(), zero), InvalidArgument);
}

TEST_F(ObjectTableDevice, BadCallsThrowByKind) {
  ObjectTable table(device());
  const ObjectId id = table.add(glm::mat4(1.0f), 0, 0);
  EXPECT_KIND(table.set_transform(id + 1, glm::mat4(1.0f)), InvalidArgument);
  EXPECT_KIND(table.set_material(12345, 1), InvalidArgument);
  EXPECT_KIND(table.set_mesh(12345, 1), InvalidArgument);
  EXPECT_KIND(table.remove(id + 1), InvalidArgument);
  EXPECT_KIND(table.meta(id + 1), InvalidArgument);
  EXPECT_EQ(table.meta(id).flags, kObjectLive);
  glm::mat4 nan(1.0f);
  nan[3][1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_KIND(table.set_transform(id, nan), InvalidArgument);
  glm::mat4 inf(1.0f);
  inf[0][0] = -std::numeric_limits<float>::infinity();
  EXPECT_KIND(table.set_transform(id, inf), InvalidArgument);
  EXPECT_KIND(table.add(inf, 0, 0), InvalidArgument);
  EXPECT_KIND(table.add(glm::mat4(1.0f), 0, 0, 256), InvalidArgument);
  // A record keeps rows 0..2 (ObjectRecord): a matrix whose last row is not exactly (0, 0, 0, 1)
  // (a projection, a homogeneous scale) is refused, not drawn as its affine part; -0 is 0.
  glm::mat4 projective(1.0f);
  projective[2][3] = -1.0f;
  projective[3][3] = 0.0f;
  EXPECT_KIND(table.set_transform(id, projective), InvalidArgument);
  glm::mat4 homogeneous(1.0f);
  homogeneous[3][3] = 2.0f;
  EXPECT_KIND(table.add(homogeneous, 0, 0), InvalidArgument);
  const ObjectId batch_ids[2] = {id, id};
  const glm::mat4 batch_worlds[2] = {glm::mat4(1.0f), homogeneous};
  EXPECT_KIND(table.set_transforms(batch_ids, batch_worlds), InvalidArgument);
  glm::mat4 negative_zero(1.0f);
  negative_zero[0][3] = -0.0f;
  table.set_transform(id, negative_zero);
  EXPECT_EQ(table.size(), 1u);
  table.remove(id);
  EXPECT_KIND(table.set_transform(id, glm::mat4(1.0f)), InvalidArgument);  // removed
  EXPECT_KIND(table.remove(id), InvalidArgument);
  EXPECT_EQ(table.size(), 0u);

  ObjectTableDesc zero;
  zero.initial_capacity = 0;
  EXPECT_KIND(ObjectTable(device(), zero), InvalidArgument);
  const Limits& l = device().limits();
  const uint64_t max_records = std::min(l.maxStorageBufferBindingSize, l.maxBufferSize) / 64;
  if (max_records < UINT32_MAX) {
    ObjectTableDesc huge;
    huge.initial_capacity = uint32_t(max_records + 1);
    EXPECT_KIND(ObjectTable(device(), huge), BufferTooLarge);
  }
}

}  // namespace
}  // namespace bindery::gpu_driven
