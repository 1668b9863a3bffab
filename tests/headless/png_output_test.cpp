// SPDX-License-Identifier: MIT
// write_png() under a write that cannot complete (issue 18, H10's relative): the error is Io and
// no truncated PNG is left behind. A child process limits its file size (RLIMIT_FSIZE, SIGXFSZ
// ignored so that writes past it fail with EFBIG) and writes an image larger than the limit.
#include <bindery/error.hpp>
#include <bindery/image.hpp>

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <random>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bindery {
namespace {

namespace fs = std::filesystem;

TEST(PngOutput, APngThatCouldNotBeCompletedIsRemoved) {
  const fs::path png = fs::path(::testing::TempDir()) /
                       ("bindery_png_cut_" + std::to_string(getpid()) + ".png");
  fs::remove(png);
  Image image;
  image.width = 256;
  image.height = 256;
  image.rgba.resize(size_t{256} * 256 * 4);
  std::mt19937 rng(7);  // noise: the PNG stays about as large as the pixels (256 KiB)
  for (auto& b : image.rgba) b = static_cast<uint8_t>(rng());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{16 * 1024, 16 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    int code = 3;
    try {
      write_png(png.string(), image);
      code = 0;  // written whole: the limit did not bite
    } catch (const Error& e) {
      code = e.kind() == ErrorKind::Io ? 1 : 2;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << "expected an Io error";
  EXPECT_FALSE(fs::exists(png)) << "a truncated PNG was left behind";
  // Without the limit the same image is written whole.
  write_png(png.string(), image);
  EXPECT_GT(fs::file_size(png), 16u * 1024);
  fs::remove(png);
}

}  // namespace
}  // namespace bindery
