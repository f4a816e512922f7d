// The state directory on real files: changes saved, replayed over what the
// rig and terrain directories loaded (API changes winning), damaged files
// reported and skipped, failed writes leaving the registry as it was.
#include "state/state_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::GridMesh;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

namespace fs = std::filesystem;

v1::Rig Named(const std::string& name, double forearm = -0.25) {
  v1::Rig rig = ArmRig();
  rig.set_name(name);
  rig.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(forearm);
  return rig;
}

v1::Terrain Ground(const std::string& name) {
  v1::Terrain terrain;
  terrain.set_name(name);
  *terrain.mutable_mesh() = GridMesh(4, 4, 0.5, -1.0, -1.0, 0.0, 0.1);
  return terrain;
}

class StateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        fs::temp_directory_path() /
        ("ikd-state-test-" + std::to_string(getpid()) + "-" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    store_ = Open();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(directory_);
  }

  std::unique_ptr<StateStore> Open() {
    auto store = StateStore::Open(directory_.string());
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Registers through the handlers, as RegisterRig does.
  absl::Status Register(IkHandlers& handlers, const v1::Rig& rig,
                        bool replace = false) {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = rig;
    request.set_replace(replace);
    v1::RegisterRigResponse response;
    return handlers.RegisterRig(request, response);
  }

  static std::vector<std::string> Names(const RigRegistry& rigs) {
    std::vector<std::string> names;
    for (const auto& entry : rigs.List()) names.push_back(entry->name());
    return names;
  }

  void WriteFile(const std::string& name, const std::string& bytes) {
    std::ofstream(directory_ / name, std::ios::binary) << bytes;
  }
  std::string ReadFile(const std::string& name) {
    std::ifstream in(directory_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path directory_;
  std::unique_ptr<StateStore> store_;
  ServiceLimits limits_;
};

TEST_F(StateStoreTest, ChangesReplayOverTheDirectories) {
  {
    RigRegistry rigs(10);
    TerrainRegistry terrains(10);
    IkHandlers handlers(rigs, terrains, limits_, store_.get());
    ASSERT_TRUE(Register(handlers, Named("kept")).ok());
    ASSERT_TRUE(Register(handlers, Named("replaced")).ok());
    ASSERT_TRUE(Register(handlers, Named("replaced", -0.5), true).ok());
    ASSERT_TRUE(Register(handlers, Named("gone")).ok());
    v1::DeleteRigRequest remove;
    remove.set_name("gone");
    v1::DeleteRigResponse removed;
    ASSERT_TRUE(handlers.DeleteRig(remove, removed).ok());
    v1::RegisterTerrainRequest terrain;
    *terrain.mutable_terrain() = Ground("floor");
    v1::RegisterTerrainResponse registered;
    ASSERT_TRUE(handlers.RegisterTerrain(terrain, registered).ok());
  }
  // A restart: the rig directory defines "gone" and an old "replaced"; the
  // API's changes win.
  RigRegistry rigs(10);
  TerrainRegistry terrains(10);
  ASSERT_TRUE(
      rigs.Register(*BuildRigEntry(Named("gone"), limits_, ""), false).ok());
  ASSERT_TRUE(
      rigs.Register(*BuildRigEntry(Named("replaced", -0.3), limits_, ""), false)
          .ok());
  const StateStore::Replayed replayed = Open()->Replay(limits_, rigs, terrains);
  EXPECT_THAT(replayed.skipped, SizeIs(0));
  EXPECT_EQ(replayed.rigs, 2);
  EXPECT_EQ(replayed.terrains, 1);
  EXPECT_EQ(replayed.deleted, 1);
  EXPECT_THAT(Names(rigs), ElementsAre("kept", "replaced"));
  auto replaced = rigs.Get({"replaced", "name"});
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ((*replaced)->revision,
            (*BuildRigEntry(Named("replaced", -0.5), limits_, ""))->revision);
  auto floor = terrains.Get({"floor", "name"});
  ASSERT_TRUE(floor.ok()) << floor.status();
  EXPECT_EQ((*floor)->revision,
            (*BuildTerrainEntry(Ground("floor"), limits_, ""))->revision);
}

TEST_F(StateStoreTest, DamagedFilesAreReportedAndSkipped) {
  ASSERT_TRUE(
      store_
          ->SaveRig(Named("good"),
                    (*BuildRigEntry(Named("good"), limits_, ""))->revision,
                    "rig")
          .ok());
  const std::string good = ReadFile("rig.good.binpb");
  ASSERT_FALSE(good.empty());
  // Not a stored entry at all.
  WriteFile("rig.garbage.binpb", std::string("\xff\xff\xff\xff\x0f", 5));
  // Cut short.
  WriteFile("rig.cut.binpb", good.substr(0, good.size() / 2));
  // A changed number (the forearm's length, in its last bit): the
  // definition still parses and validates, but does not hash to the
  // revision it was acknowledged with.
  const double forearm = -0.2625;
  ASSERT_TRUE(
      store_
          ->SaveRig(Named("changed", forearm),
                    (*BuildRigEntry(Named("changed", forearm), limits_, ""))
                        ->revision,
                    "rig")
          .ok());
  std::string changed = ReadFile("rig.changed.binpb");
  const size_t at = changed.find(
      std::string(reinterpret_cast<const char*>(&forearm), sizeof forearm));
  ASSERT_NE(at, std::string::npos);
  changed[at] ^= 0x01;
  WriteFile("rig.changed.binpb", changed);
  // The right content under another name's file.
  WriteFile("rig.other.binpb", good);

  RigRegistry rigs(10);
  TerrainRegistry terrains(10);
  const StateStore::Replayed replayed = Open()->Replay(limits_, rigs, terrains);
  EXPECT_THAT(Names(rigs), ElementsAre("good"));
  ASSERT_THAT(replayed.skipped, SizeIs(4));
  const std::string prefix = directory_.string() + "/rig.";
  EXPECT_THAT(replayed.skipped[0],
              HasSubstr(prefix + "changed.binpb: the definition hashes to "));
  EXPECT_THAT(replayed.skipped[1], HasSubstr(prefix + "cut.binpb: "));
  EXPECT_THAT(replayed.skipped[2], HasSubstr(prefix + "garbage.binpb: "));
  EXPECT_THAT(replayed.skipped[3],
              HasSubstr(prefix + "other.binpb: holds 'good'"));
}

TEST_F(StateStoreTest, LeftoverTemporaryFilesAreRemovedAtOpen) {
  WriteFile("rig.half.binpb.tmp", "half a change, never acknowledged");
  store_ = Open();
  EXPECT_FALSE(fs::exists(directory_ / "rig.half.binpb.tmp"));
}

TEST_F(StateStoreTest, AFailedWriteChangesNothing) {
  RigRegistry rigs(10);
  TerrainRegistry terrains(10);
  IkHandlers handlers(rigs, terrains, limits_, store_.get());
  ASSERT_TRUE(Register(handlers, Named("kept")).ok());
  fs::remove_all(directory_);  // every write fails from now on

  const absl::Status added = Register(handlers, Named("new"));
  EXPECT_EQ(added.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(added.message()),
              HasSubstr("rig: not saved, nothing changed: --state_dir "));
  EXPECT_EQ(FieldPathOf(added), "rig");
  const absl::Status replaced = Register(handlers, Named("kept", -0.5), true);
  EXPECT_EQ(replaced.code(), absl::StatusCode::kInternal);
  v1::DeleteRigRequest remove;
  remove.set_name("kept");
  v1::DeleteRigResponse removed;
  const absl::Status deleted = handlers.DeleteRig(remove, removed);
  EXPECT_EQ(deleted.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(FieldPathOf(deleted), "name");

  EXPECT_THAT(Names(rigs), ElementsAre("kept"));
  auto kept = rigs.Get({"kept", "name"});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)->revision,
            (*BuildRigEntry(Named("kept"), limits_, ""))->revision);
}

TEST_F(StateStoreTest, AnUnusableDirectoryFailsTheStart) {
  auto store = StateStore::Open("/proc/version/state");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(store.status().message()),
              HasSubstr("--state_dir /proc/version/state: "));
}

}  // namespace
}  // namespace ik::server
