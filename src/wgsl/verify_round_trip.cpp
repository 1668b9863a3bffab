// SPDX-License-Identifier: MIT
// The GPU round trips of the layout verifier (verify_round_trip.hpp): planned per struct, run in
// batches, one compute module per batch, checked leaf by leaf.
#include "wgsl/verify_round_trip.hpp"

#include "wgsl/verify_gpu.hpp"
#include "wgsl/verify_shader.hpp"

#include <bindery/core/bind_group_entries.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bindery::wgsl::verify {
namespace {

bool has_matcx2(const WgslType& t) {
  if (t.kind == TypeKind::Matrix) return t.rows == 2;
  if (t.kind == TypeKind::Array) return has_matcx2(*t.element);
  if (t.kind == TypeKind::Struct)
    for (const auto& m : t.struct_layout->members)
      if (has_matcx2(*m.type)) return true;
  return false;
}

/// True when a matCx2 sits in a struct that is a plain (not array element) member somewhere in
/// `s`: naga 29's SPIR-V back end reads such columns wrongly from a uniform buffer, or loses the
/// device (docs/LAYOUT.md, known implementation bugs).
bool uniform_matcx2_hazard(const StructLayout& s) {
  for (const auto& m : s.members) {
    const WgslType* t = m.type.get();
    while (t->kind == TypeKind::Array) t = t->element.get();
    if (t->kind != TypeKind::Struct) continue;
    if (m.type->kind == TypeKind::Struct && has_matcx2(*t)) return true;
    if (uniform_matcx2_hazard(*t->struct_layout)) return true;
  }
  return false;
}

}  // namespace

Verifier::Verifier(const Device& d, std::string_view source, const VerifyOptions& o)
    : d_(d), o_(o), prefix_(fresh_prefix(source)), decls_(layout_declarations(source)) {}

CompileVerdict Verifier::verdict_in(const StructLayout& s, std::string_view space) {
  const std::string wgsl =
      fmt::format("{}\n@group(0) @binding(0) var<{}> {}v: {};\n", decls_, space, prefix_, s.name);
  ++work_.compiles;
  work_.wgsl_bytes += wgsl.size();
  return compile_verdict(d_, wgsl);
}

bool Verifier::all_valid_in(const std::vector<const StructLayout*>& list, std::string_view space) {
  std::string wgsl = decls_ + "\n";
  for (size_t i = 0; i < list.size(); ++i)
    wgsl += fmt::format("@group(0) @binding({}) var<{}> {}v{}: {};\n", i, space, prefix_, i,
                        list[i]->name);
  ++work_.compiles;
  work_.wgsl_bytes += wgsl.size();
  return compile_verdict(d_, wgsl).valid;
}

uint64_t Verifier::statements(const Item& it) const {
  ShaderWriter w{prefix_ + "words", prefix_, leaves(), {}};
  if (it.uniform) w.read_struct(*it.s, "u", 0);
  w.read_struct(*it.s, "s", 0);
  w.write_struct(*it.s, "s");
  return uint64_t(std::count(w.out.begin(), w.out.end(), ';'));
}

void Verifier::run_batch(std::vector<Item>& batch) {
  std::string error;
  try {
    error = try_batch(batch);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::DeviceLost) throw;
    error = e.what();
  }
  if (error.empty()) return;
  if (batch.size() == 1) {
    batch[0].result->error = error;
    return;
  }
  // Find which struct the implementation refused: one module each.
  for (Item& it : batch) {
    std::vector<Item> one{it};
    run_batch(one);
  }
}

/// Runs one module for `batch`; returns the implementation's error, or empty.
std::string Verifier::try_batch(std::vector<Item>& batch) {
  const BatchModule m = build_module(batch);
  // Host data through StructView at bindery's offsets; padding bytes 0xA5.
  std::vector<std::byte> storage(round_up(4, std::max<uint64_t>(m.storage_bytes, 4)),
                                 std::byte{0xA5});
  std::vector<std::byte> uniform(round_up(16, std::max<uint64_t>(m.uniform_bytes, 16)),
                                 std::byte{0xA5});
  for (size_t j = 0; j < batch.size(); ++j) {
    const Item& it = batch[j];
    fill(*it.s, std::span(storage).subspan(m.place[j].storage_offset, it.storage_size));
    if (it.uniform)
      fill(*it.s, std::span(uniform).subspan(m.place[j].uniform_offset, it.uniform_size));
  }
  last_module_ = m.wgsl;
  ++work_.compiles;
  work_.wgsl_bytes += m.wgsl.size();
  dump_module(m.wgsl, batch[0].s->name);
  BatchReadback back;
  if (std::string e = run_module(batch, m, storage, uniform, back); !e.empty()) return e;
  check_batch(batch, m, back);
  return {};
}

// Places every struct of `batch` (storage, and uniform where it may be one) and writes the
// compute shader that copies each leaf into the output words and each struct back through
// storage.
Verifier::BatchModule Verifier::build_module(std::vector<Item>& batch) {
  const Limits& lim = d_.limits();
  const std::string words = prefix_ + "words";
  ShaderWriter w{words, prefix_, leaves(), {}};
  std::string decl = decls_ + "\n";
  BatchModule m;
  m.place.resize(batch.size());
  uint32_t binding = 1;
  for (size_t j = 0; j < batch.size(); ++j) {
    Item& it = batch[j];
    Placement& p = m.place[j];
    const std::string sv = fmt::format("{}s{}", prefix_, j), uv = fmt::format("{}u{}", prefix_, j);
    p.storage_binding = binding++;
    p.storage_offset = round_up(lim.minStorageBufferOffsetAlignment, m.storage_bytes);
    m.storage_bytes = p.storage_offset + it.storage_size;
    decl += fmt::format("@group(0) @binding({}) var<storage, read_write> {}: {};\n",
                        p.storage_binding, sv, it.s->name);
    if (it.uniform) {
      p.uniform_binding = binding++;
      p.uniform_offset = round_up(lim.minUniformBufferOffsetAlignment, m.uniform_bytes);
      m.uniform_bytes = p.uniform_offset + it.uniform_size;
      decl += fmt::format("@group(0) @binding({}) var<uniform> {}: {};\n", p.uniform_binding, uv,
                          it.s->name);
      p.uniform_words = m.word_count;
      m.word_count += it.leaves;
      w.out += fmt::format("  // {} from uniform\n", it.s->name);
      w.read_struct(*it.s, uv, p.uniform_words);
    }
    p.storage_words = m.word_count;
    m.word_count += it.leaves;
    w.out += fmt::format("  // {} from storage\n", it.s->name);
    w.read_struct(*it.s, sv, p.storage_words);
    if (const StructMember* rt = runtime_array_member(*it.s)) {
      p.length_word = m.word_count++;
      w.out +=
          fmt::format("  {}[{}u] = arrayLength(&{}.{});\n", words, p.length_word, sv, rt->name);
    }
  }
  // A fixed-size output array: constant indices need no run-time bounds checks, which would cost
  // lavapipe a branch per leaf.
  decl += fmt::format("@group(0) @binding(0) var<storage, read_write> {}: array<u32, {}>;\n", words,
                      std::max<uint64_t>(m.word_count, 1));
  for (size_t j = 0; j < batch.size(); ++j) {
    w.out += fmt::format("  // {} written by the GPU\n", batch[j].s->name);
    w.write_struct(*batch[j].s, fmt::format("{}s{}", prefix_, j));
  }
  m.wgsl =
      decl + fmt::format("\n@compute @workgroup_size(1)\nfn {}main() {{\n{}}}\n", prefix_, w.out);
  return m;
}

// BINDERY_VERIFY_DUMP=DIR keeps each module as DIR/NAME.wgsl, written before compiling, so a
// module that crashes the driver is kept too.
void Verifier::dump_module(const std::string& wgsl, const std::string& name) {
  if (const char* dir = std::getenv("BINDERY_VERIFY_DUMP")) {
    if (FILE* f = std::fopen(fmt::format("{}/{}.wgsl", dir, name).c_str(), "wb")) {
      std::fwrite(wgsl.data(), 1, wgsl.size(), f);
      std::fclose(f);
    }
  }
}

// The bind group of a batch: the output words at binding 0, then each struct's storage (and
// uniform) window.
std::vector<WGPUBindGroupEntry> Verifier::build_entries(const std::vector<Item>& batch,
                                                        const BatchModule& m, WGPUBuffer words,
                                                        uint64_t words_bytes, WGPUBuffer storage,
                                                        WGPUBuffer uniform) {
  std::vector<WGPUBindGroupEntry> entries;
  entries.push_back(buffer_group_entry(0, words, 0, words_bytes));
  for (size_t j = 0; j < batch.size(); ++j) {
    entries.push_back(buffer_group_entry(m.place[j].storage_binding, storage,
                                         m.place[j].storage_offset, batch[j].storage_size));
    if (batch[j].uniform)
      entries.push_back(buffer_group_entry(m.place[j].uniform_binding, uniform,
                                           m.place[j].uniform_offset, batch[j].uniform_size));
  }
  return entries;
}

// Compiles the module, uploads the host data, dispatches once and reads the words and the
// storage buffer back into `back`; returns the implementation's error, or empty.
std::string Verifier::run_module(const std::vector<Item>& batch, const BatchModule& m,
                                 const std::vector<std::byte>& storage,
                                 const std::vector<std::byte>& uniform, BatchReadback& back) {
  Scope scope(d_);
  gpu::ShaderModule module = create_module(d_, m.wgsl);
  WGPUComputePipelineDescriptor pd = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pd.compute.module = module.get();
  const std::string entry = prefix_ + "main";
  pd.compute.entryPoint = gpu::sv(entry);
  gpu::ComputePipeline pipeline =
      gpu::ComputePipeline::acquire(wgpuDeviceCreateComputePipeline(d_.get(), &pd));
  if (std::string e = scope.pop(); !e.empty()) return e;

  Scope run(d_);
  const std::vector<uint32_t> sentinel(m.word_count, 0xFFFFFFFFu);
  const uint64_t words_bytes = std::max<uint64_t>(m.word_count, 1) * 4;
  gpu::Buffer words_buf =
      d_.create_buffer("layout verification words", words_bytes,
                       WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
  gpu::Buffer storage_buf =
      d_.create_buffer("layout verification storage", storage.size(),
                       WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst);
  gpu::Buffer uniform_buf = d_.create_buffer("layout verification uniform", uniform.size(),
                                             WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  if (m.word_count) d_.write_buffer(words_buf.get(), 0, sentinel.data(), m.word_count * 4);
  d_.write_buffer(storage_buf.get(), 0, storage.data(), storage.size());
  d_.write_buffer(uniform_buf.get(), 0, uniform.data(), uniform.size());

  const std::vector<WGPUBindGroupEntry> entries =
      build_entries(batch, m, words_buf.get(), words_bytes, storage_buf.get(), uniform_buf.get());
  gpu::BindGroupLayout bgl =
      gpu::BindGroupLayout::acquire(wgpuComputePipelineGetBindGroupLayout(pipeline.get(), 0));
  WGPUBindGroupDescriptor bgd = WGPU_BIND_GROUP_DESCRIPTOR_INIT;
  bgd.layout = bgl.get();
  bgd.entryCount = entries.size();
  bgd.entries = entries.data();
  gpu::BindGroup group = d_.create_bind_group(bgd);
  gpu::CommandEncoder enc =
      gpu::CommandEncoder::acquire(wgpuDeviceCreateCommandEncoder(d_.get(), nullptr));
  WGPUComputePassDescriptor cpd = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  gpu::ComputePassEncoder pass =
      gpu::ComputePassEncoder::acquire(wgpuCommandEncoderBeginComputePass(enc.get(), &cpd));
  wgpuComputePassEncoderSetPipeline(pass.get(), pipeline.get());
  wgpuComputePassEncoderSetBindGroup(pass.get(), 0, group.get(), 0, nullptr);
  wgpuComputePassEncoderDispatchWorkgroups(pass.get(), 1, 1, 1);
  wgpuComputePassEncoderEnd(pass.get());
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc.get(), nullptr);
  wgpuQueueSubmit(d_.queue(), 1, &cb);
  wgpuCommandBufferRelease(cb);
  if (std::string e = run.pop(); !e.empty()) return e;

  back.words = read_back(d_, words_buf.get(), words_bytes);
  back.storage = read_back(d_, storage_buf.get(), storage.size());
  return {};
}

// Compares what the GPU read (the words) and wrote (the storage bytes) with bindery's layout,
// struct by struct, into each item's result.
void Verifier::check_batch(std::vector<Item>& batch, const BatchModule& m, BatchReadback& back) {
  auto word = [&](uint64_t i) {
    uint32_t v;
    std::memcpy(&v, back.words.data() + i * 4, 4);
    return v;
  };
  for (size_t j = 0; j < batch.size(); ++j) {
    Item& it = batch[j];
    StructVerification& r = *it.result;
    if (it.uniform) {
      compare_words(*it.s, r, "uniform->gpu",
                    [&](uint64_t k) { return word(m.place[j].uniform_words + k); });
      r.uniform_round_trip = true;
    }
    compare_words(*it.s, r, "storage->gpu",
                  [&](uint64_t k) { return word(m.place[j].storage_words + k); });
    if (const StructMember* rt = runtime_array_member(*it.s)) {
      // arrayLength = floor((binding size - offset of the array) / stride) (WGSL §17.6.1).
      const uint32_t expected =
          static_cast<uint32_t>((it.storage_size - rt->offset) / rt->type->stride);
      const uint32_t seen = word(m.place[j].length_word);
      ++r.checks;
      if (seen != expected)
        add(r, LeafMismatch{
                   "arrayLength", rt->name, rt->offset, expected, seen,
                   fmt::format("binding size {}, stride {}", it.storage_size, rt->type->stride)});
    }
    StructView view(*it.s,
                    std::span(back.storage).subspan(m.place[j].storage_offset, it.storage_size));
    compare_view(*it.s, r, view);
    r.storage_round_trip = true;
  }
}

void Verifier::fill(const StructLayout& s, std::span<std::byte> bytes) {
  StructView v(s, bytes);
  uint64_t k = 0;
  uint32_t bits[16];
  for_each_field(s, leaves(), [&](const FieldRef& f) {
    const uint32_t n = components(f);
    for (uint32_t i = 0; i < n; ++i) bits[i] = pattern(f.scalar, false, k + i);
    write_field(v, f, bits);
    k += n;
  });
}

void Verifier::add(StructVerification& r, LeafMismatch m) {
  ++r.mismatch_count;
  if (r.mismatches.size() < o_.max_listed_mismatches) r.mismatches.push_back(std::move(m));
}

/// Names the leaf whose pattern `seen` is, if any.
std::string Verifier::whose(const StructLayout& s, ScalarKind scalar, uint32_t seen) {
  if (seen == 0xFFFFFFFFu) return "the shader wrote nothing there";
  if (seen == 0xA5A5A5A5u || (scalar == ScalarKind::F16 && (seen & 0xFFFF) == 0xA5A5u))
    return "padding (bindery wrote nothing there)";
  auto d = decode(scalar, seen);
  if (!d) return {};
  std::string found;
  uint64_t k = 0;
  for_each_field(s, leaves(), [&](const FieldRef& f) {
    const uint32_t n = components(f);
    if (found.empty() && d->first >= k && d->first < k + n) {
      auto [path, off] = component(f, static_cast<uint32_t>(d->first - k));
      found = fmt::format("the {} value of '{}' (bindery offset {})",
                          d->second ? "GPU's" : "host's", path, off);
    }
    k += n;
  });
  return found;
}

template <class Word>
void Verifier::compare_words(const StructLayout& s, StructVerification& r, const char* direction,
                             Word&& word) {
  uint64_t k = 0;
  for_each_field(s, leaves(), [&](const FieldRef& f) {
    const uint32_t n = components(f);
    for (uint32_t i = 0; i < n; ++i, ++k) {
      ++r.checks;
      const uint32_t expected = pattern(f.scalar, false, k), seen = word(k);
      if (seen != expected) {
        auto [path, off] = component(f, i);
        add(r, LeafMismatch{direction, path, off, expected, seen, whose(s, f.scalar, seen)});
      }
    }
  });
}

void Verifier::compare_view(const StructLayout& s, StructVerification& r, const StructView& v) {
  uint64_t k = 0;
  uint32_t bits[16];
  for_each_field(s, leaves(), [&](const FieldRef& f) {
    const uint32_t n = components(f);
    read_field(v, f, bits);
    for (uint32_t i = 0; i < n; ++i, ++k) {
      ++r.checks;
      const uint32_t expected = pattern(f.scalar, true, k);
      if (bits[i] != expected) {
        auto [path, off] = component(f, i);
        add(r, LeafMismatch{"gpu->storage", path, off, expected, bits[i],
                            whose(s, f.scalar, bits[i])});
      }
    }
  });
}

// The round trip of `used` (storage, and uniform where it may and can run), or nullopt with
// r.skipped saying why none runs. r.skipped also names a uniform round trip left out.
std::optional<Item> plan_round_trip(const StructLayout& used, const VerifyOptions& options,
                                    const Limits& lim, StructVerification& r) {
  std::vector<std::string> why;
  auto skip_reason = [&] { return fmt::format("{}", fmt::join(why, "; ")); };
  if (!r.host_shareable) why.push_back("not host-shareable (bool)");
  if (!(r.expected_storage_valid && r.gpu_storage_valid)) {
    if (r.host_shareable) why.push_back("not valid in storage");
    r.skipped = skip_reason();
    return std::nullopt;
  }
  Item it;
  it.s = &used;
  it.result = &r;
  it.leaves = leaf_count(used, options.runtime_array_elements);
  const StructMember* rt = runtime_array_member(used);
  const uint64_t rt_end =
      rt ? rt->offset + uint64_t(options.runtime_array_elements) * rt->type->stride : 0;
  it.storage_size = round_up(4, std::max<uint64_t>(used.size, rt_end));
  it.uniform_size = round_up(16, used.size);
  if (it.storage_size > lim.maxStorageBufferBindingSize) {
    why.push_back(fmt::format("{} bytes exceed maxStorageBufferBindingSize ({})", it.storage_size,
                              lim.maxStorageBufferBindingSize));
    r.skipped = skip_reason();
    return std::nullopt;
  }
  it.uniform = r.expected_uniform_valid && r.gpu_uniform_valid && options.uniform_round_trip;
  if (!options.uniform_round_trip) {
    why.push_back("uniform round trip not run: switched off");
  } else if (it.uniform && uniform_matcx2_hazard(used)) {
    it.uniform = false;
    why.push_back(
        "uniform round trip not run: a matCx2 in a nested struct, which naga 29 reads wrongly "
        "from "
        "uniform buffers (docs/LAYOUT.md)");
  } else if (!it.uniform) {
    why.push_back("uniform round trip not run: not valid in uniform");
  } else if (it.uniform_size > lim.maxUniformBufferBindingSize) {
    it.uniform = false;
    why.push_back(
        fmt::format("uniform round trip not run: {} bytes exceed maxUniformBufferBindingSize ({})",
                    it.uniform_size, lim.maxUniformBufferBindingSize));
  }
  r.skipped = skip_reason();
  return it;
}

// Runs the round trips in batches within the per-stage limits (one storage binding is the words
// array) and options.max_structs_per_module.
void run_round_trips(Verifier& v, const std::vector<Item>& todo, const VerifyOptions& options,
                     const Limits& lim) {
  const uint32_t max_storage =
      lim.maxStorageBuffersPerShaderStage > 1 ? lim.maxStorageBuffersPerShaderStage - 1 : 1;
  const uint32_t max_uniform = std::max<uint32_t>(lim.maxUniformBuffersPerShaderStage, 1);
  const uint64_t max_words = std::min<uint64_t>(lim.maxStorageBufferBindingSize / 4, 1u << 22);
  std::vector<Item> batch;
  uint32_t n_storage = 0, n_uniform = 0;
  uint64_t n_words = 0;
  auto flush = [&] {
    if (!batch.empty()) v.run_batch(batch);
    batch.clear();
    n_storage = n_uniform = 0;
    n_words = 0;
  };
  for (const Item& it : todo) {
    const uint64_t words = it.leaves * (it.uniform ? 2 : 1) + 1;
    if (!batch.empty() &&
        (n_storage + 1 > max_storage || n_uniform + (it.uniform ? 1 : 0) > max_uniform ||
         n_words + words > max_words ||
         (options.max_structs_per_module && batch.size() >= options.max_structs_per_module)))
      flush();
    batch.push_back(it);
    n_storage += 1;
    n_uniform += it.uniform ? 1 : 0;
    n_words += words;
  }
  flush();
}

}  // namespace bindery::wgsl::verify
