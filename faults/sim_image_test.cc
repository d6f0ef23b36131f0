// Goal: a SimImage holds exactly the bytes a std::string given the same writes and resizes holds,
// and a copy of an image is independent of it (a write to one never shows in the other), however
// the writes straddle chunks; its hash, kept per chunk, is at every step the hash of the model's
// bytes (a write forgets what it changed); a write to a shared image copies only the chunks it
// touches.
// Method: random writes, resizes and copies against a std::string model (RapidCheck), and the
// held bytes of two images before and after one small write.
#include "faults/sim_image.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace stepfault::faults {
namespace {

constexpr uint64_t K = SimImage::kChunkBytes;

void ModelWrite(std::string* model, uint64_t offset, const std::string& bytes) {
  if (model->size() < offset + bytes.size()) model->resize(offset + bytes.size(), '\0');
  model->replace(offset, bytes.size(), bytes);
}

RC_GTEST_PROP(SimImageProperty, HoldsWhatAStringHoldsAndCopiesStayIndependent, ()) {
  // Two images and their models; each step writes, resizes, reads or copies one into the other.
  std::vector<SimImage> images(2);
  std::vector<std::string> models(2);
  const int steps = *rc::gen::inRange(1, 40);
  for (int step = 0; step < steps; ++step) {
    const size_t i = *rc::gen::inRange<size_t>(0, 2);
    const int op = *rc::gen::inRange(0, 4);
    // Offsets and lengths around chunk boundaries as often as inside chunks.
    const uint64_t offset = *rc::gen::oneOf(rc::gen::inRange<uint64_t>(0, 3 * K),
                                            rc::gen::inRange<uint64_t>(K - 8, K + 8),
                                            rc::gen::inRange<uint64_t>(2 * K - 8, 2 * K + 8));
    if (op == 0) {
      const size_t length =
          *rc::gen::oneOf(rc::gen::inRange<size_t>(1, 64), rc::gen::inRange<size_t>(K - 4, K + 4),
                          rc::gen::inRange<size_t>(1, 2 * K + 2));
      const std::string bytes(length, *rc::gen::inRange<char>('a', 'z'));
      images[i].Write(offset, bytes);
      ModelWrite(&models[i], offset, bytes);
    } else if (op == 1) {
      images[i].Resize(offset);
      models[i].resize(offset, '\0');
    } else if (op == 2) {
      images[1 - i] = images[i];
      models[1 - i] = models[i];
    } else {
      std::string out(64, '?');
      const size_t n = images[i].Read(offset, out.size(), out.data());
      const std::string expected =
          offset < models[i].size() ? models[i].substr(offset, out.size()) : std::string();
      RC_ASSERT(out.substr(0, n) == expected);
    }
    for (size_t j = 0; j < 2; ++j) {
      RC_ASSERT(images[j].size() == models[j].size());
      RC_ASSERT(images[j].ToString() == models[j]);
      // Taken at every step, so a chunk hash kept from before a write would show here.
      RC_ASSERT(images[j].Hash() == SimImage::HashOf(models[j]));
    }
    RC_ASSERT((images[0] == images[1]) == (models[0] == models[1]));
    RC_ASSERT((images[0].Hash() == images[1].Hash()) == (models[0] == models[1]));
  }
}

TEST(SimImageTest, AWriteToASharedImageCopiesOnlyTheChunkItTouches) {
  SimImage a(std::string(10 * K, 'a'));
  SimImage b = a;
  EXPECT_TRUE(a.SharesWith(b));
  std::set<const void*> counted;
  const uint64_t one = a.HeldBytes(&counted);
  EXPECT_EQ(b.HeldBytes(&counted), 0u);  // every list and chunk already counted
  EXPECT_GE(one, 10 * K);
  b.Write(5 * K + 3, "x");
  EXPECT_FALSE(a.SharesWith(b));
  EXPECT_EQ(a.ToString(), std::string(10 * K, 'a'));
  const uint64_t added = b.HeldBytes(&counted);
  EXPECT_GE(added, K);      // the chunk it wrote
  EXPECT_LT(added, 2 * K);  // and its list of pointers, nothing else
}

}  // namespace
}  // namespace stepfault::faults
