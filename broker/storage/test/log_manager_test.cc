#include "broker/storage/log_manager.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <future>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

#include "broker/storage/checkpoint_file.h"
#include "broker/storage/test/storage_test_util.h"

namespace weir::storage {
namespace {

using test::TempDir;

struct Manager : ::testing::Test {
    TempDir tmp;
    std::vector<std::filesystem::path> dirs{tmp.path() / "d1", tmp.path() / "d2", tmp.path() / "d3"};

    std::unique_ptr<LogManager> open(std::vector<std::filesystem::path> log_dirs = {},
                                     std::size_t recovery_threads_per_dir = 1, std::size_t max_open_files = 0,
                                     bool background_sync = false) {
        LogManagerOptions o;
        o.background_sync = background_sync;
        o.log_dirs = log_dirs.empty() ? dirs : log_dirs;
        o.config_for_topic = [](const std::string&) { return test::small_segments(); };
        o.recovery_threads_per_dir = recovery_threads_per_dir;
        o.max_open_files = max_open_files;
        if (clock) o.clock = clock;
        return std::make_unique<LogManager>(o);
    }
    Clock clock;
};

// Every record of the log, read back batch by batch from its start.
std::int64_t records_read_back(PartitionLog& log) {
    std::int64_t offset = log.log_start_offset();
    std::int64_t records = 0;
    while (offset < log.log_end_offset()) {
        ReadOptions options;
        options.max_bytes = 1;  // one batch
        auto r = log.read(offset, options);
        if (r.error != ErrorCode::none || r.records.empty()) return -1;
        auto h = records::parse_batch_header(r.records);
        if (h.base_offset != offset) return -1;
        records += h.last_offset_delta + 1;
        offset = h.last_offset() + 1;
    }
    return records;
}

TEST_F(Manager, SpreadsPartitionsOverDirsAndFindsThemAgain) {
    std::vector<TopicPartition> tps;
    for (int p = 0; p < 6; ++p) tps.push_back({"my-topic.v2", p});
    tps.push_back({"a-b-c", 12});
    {
        auto manager = open();
        for (const auto& tp : tps) test::append_batches(*manager->get_or_create(tp, test::small_segments()), 3);
        std::map<std::filesystem::path, int> per_dir;
        for (const auto& tp : tps) ++per_dir[manager->dir_of(tp)];
        EXPECT_EQ(per_dir.size(), 3u);
        for (const auto& [d, n] : per_dir) EXPECT_GE(n, 2);
        EXPECT_TRUE(std::filesystem::exists(manager->dir_of(tps[0]) / "my-topic.v2-0" / "00000000000000000000.log"));
        EXPECT_EQ(manager->get_or_create(tps[0], test::small_segments()), manager->get(tps[0]));
        manager->shutdown();
    }
    auto manager = open();
    auto found = manager->partitions();
    std::sort(tps.begin(), tps.end());
    EXPECT_EQ(found, tps);
    for (const auto& tp : tps) EXPECT_EQ(manager->get(tp)->log_end_offset(), 12);
    EXPECT_FALSE(manager->get({"nope", 0}));
}

TEST_F(Manager, CleanShutdownMarkerLifecycle) {
    {
        auto manager = open();
        test::append_batches(*manager->get_or_create({"t", 0}, test::small_segments()), 2);
        manager->shutdown();
    }
    for (const auto& d : dirs) EXPECT_TRUE(std::filesystem::exists(d / ".kafka_cleanshutdown"));
    {
        auto manager = open();
        for (std::size_t i = 0; i < dirs.size(); ++i) EXPECT_TRUE(manager->dir_was_clean(i));
        for (const auto& d : dirs) EXPECT_FALSE(std::filesystem::exists(d / ".kafka_cleanshutdown"));
        test::append_batches(*manager->get({"t", 0}), 1);
        // No shutdown(): a crash.
    }
    auto manager = open();
    EXPECT_FALSE(manager->dir_was_clean(0));
    EXPECT_EQ(manager->get({"t", 0})->log_end_offset(), 12);
}

TEST_F(Manager, DeleteRecordsSurvivesUncleanRestart) {
    {
        auto manager = open();
        auto log = manager->get_or_create({"dr", 0}, test::small_segments());
        test::append_batches(*log, 10);
        ASSERT_EQ(log->delete_records_before(17), ErrorCode::none);
        // Crash right after: the checkpoint hook already wrote the new start.
    }
    auto manager = open();
    auto log = manager->get({"dr", 0});
    EXPECT_EQ(log->log_start_offset(), 17);
    EXPECT_EQ(log->read(16).error, ErrorCode::offset_out_of_range);
    EXPECT_EQ(log->read(17).error, ErrorCode::none);
    EXPECT_GT(log->segment_base_offsets().front(), 0);
}

TEST_F(Manager, UncleanRestartUsesRecoveryPointCheckpoint) {
    std::filesystem::path partition_dir;
    std::vector<std::int64_t> bases;
    {
        auto manager = open({dirs[0]});
        auto log = manager->get_or_create({"rp", 0}, test::small_segments());
        test::append_batches(*log, 12);  // rolls flush
        manager->checkpoint();
        bases = log->segment_base_offsets();
        partition_dir = manager->dir_of({"rp", 0}) / "rp-0";
    }
    ASSERT_GT(bases.size(), 2u);
    auto checkpoint = read_checkpoint_file(dirs[0] / "recovery-point-offset-checkpoint");
    EXPECT_EQ(checkpoint.at(TopicPartition{"rp", 0}), bases.back());
    // Damage below the recovery point is not scanned for (and so not truncated).
    test::flip_byte(partition_dir / segment_file_name(bases[0], kLogSuffix), 80);
    auto manager = open({dirs[0]});
    EXPECT_EQ(manager->get({"rp", 0})->log_end_offset(), 48);
    EXPECT_EQ(manager->get({"rp", 0})->segment_base_offsets(), bases);
}

// In the background, a roll's fsync and the checkpoint writes take effect
// when the periodic pass collects them, not before: the recovery point never
// runs ahead of what is on disk.
TEST_F(Manager, BackgroundSyncsTakeEffectWhenCollected) {
    auto manager = open({dirs[0]}, 1, 0, true);
    auto log = manager->get_or_create({"bg", 0}, test::small_segments());
    manager->checkpoint();
    manager->wait_for_syncs();
    test::append_batches(*log, 12);
    const auto bases = log->segment_base_offsets();
    ASSERT_GT(bases.size(), 2u);
    EXPECT_EQ(log->recovery_point(), 0);
    manager->wait_for_syncs();
    EXPECT_EQ(log->recovery_point(), bases.back());
    auto on_disk = [&] {
        return read_checkpoint_file(dirs[0] / "recovery-point-offset-checkpoint").at(TopicPartition{"bg", 0});
    };
    EXPECT_EQ(on_disk(), 0);
    manager->checkpoint();
    manager->wait_for_syncs();
    EXPECT_EQ(on_disk(), bases.back());
}

// A log deleted while its roll's sync waits behind other work: the sync finds
// its files gone, which is no failure of the disk.
TEST_F(Manager, ALogDeletedBeforeItsRollSyncsLeavesTheDirOnline) {
    auto manager = open({dirs[0]}, 1, 0, true);
    auto log = manager->get_or_create({"gone", 0}, test::small_segments());
    std::promise<void> release;
    auto released = release.get_future().share();
    manager->submit_write([released] { released.wait(); }, {});
    test::append_batches(*log, 12);
    ASSERT_GT(log->segment_count(), 1u);
    ASSERT_TRUE(manager->remove({"gone", 0}));
    manager->wait_for_deletions();
    release.set_value();
    manager->wait_for_syncs();
    EXPECT_TRUE(manager->offline_dirs().empty());
}

// A log created again while the checkpoint write that drops its removed
// namesake is still on its way: the files must not hand the new log the old
// one's recovery point after a crash.
TEST_F(Manager, ALogRecreatedBeforeItsRemovalReachedTheCheckpointsDoesNotInheritThem) {
    using namespace std::chrono_literals;
    const TopicPartition tp{"again", 0};
    const auto file = dirs[0] / "recovery-point-offset-checkpoint";
    auto manager = open({dirs[0]}, 1, 0, true);
    auto log = manager->get_or_create(tp, test::small_segments());
    test::append_batches(*log, 12);
    manager->wait_for_syncs();
    manager->checkpoint();
    manager->wait_for_syncs();
    ASSERT_GT(read_checkpoint_file(file).at(tp), 0);
    std::promise<void> release;
    auto released = release.get_future().share();
    manager->submit_write([released] { released.wait(); }, {});
    ASSERT_TRUE(manager->remove(tp));
    manager->checkpoint();  // its write waits behind the blocked one
    std::thread releaser([&] {
        std::this_thread::sleep_for(100ms);
        release.set_value();
    });
    manager->get_or_create(tp, test::small_segments());
    releaser.join();
    // A crash now: the new log starts from what the files hold.
    EXPECT_FALSE(read_checkpoint_file(file).contains(tp));
}

// A checkpoint write that fails in the background takes the dir offline
// when collected, as one failing in place does.
TEST_F(Manager, ABackgroundCheckpointFailureTakesTheDirOffline) {
    auto manager = open({dirs[0]}, 1, 0, true);
    auto log = manager->get_or_create({"bg", 0}, test::small_segments());
    test::append_batches(*log, 3);
    log->flush();
    std::filesystem::remove_all(dirs[0]);
    manager->checkpoint();
    EXPECT_FALSE(manager->all_dirs_offline());
    manager->wait_for_syncs();
    EXPECT_TRUE(manager->all_dirs_offline());
}

TEST_F(Manager, CheckpointFilesUseKafkaFormat) {
    auto manager = open({dirs[0]});
    test::append_batches(*manager->get_or_create({"cp", 1}, test::small_segments()), 10);
    manager->checkpoint();
    std::ifstream in(dirs[0] / "recovery-point-offset-checkpoint");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto rp = manager->get({"cp", 1})->recovery_point();
    EXPECT_GT(rp, 0);
    EXPECT_EQ(text, "0\n1\ncp 1 " + std::to_string(rp) + "\n");
    auto starts = read_checkpoint_file(dirs[0] / "log-start-offset-checkpoint");
    EXPECT_EQ(starts.at(TopicPartition{"cp", 1}), 0);
}

// The periodic pass rewrites only dirs where something moved; a flush or a
// truncation between passes must still reach the file.
TEST_F(Manager, CheckpointFollowsFlushesAndTruncations) {
    auto manager = open({dirs[0]});
    auto log = manager->get_or_create({"cp", 0}, LogConfig{});
    manager->checkpoint();
    auto recovery_point = [&] {
        return read_checkpoint_file(dirs[0] / "recovery-point-offset-checkpoint").at(TopicPartition{"cp", 0});
    };
    EXPECT_EQ(recovery_point(), 0);
    test::append_batches(*log, 4);
    log->flush();
    manager->checkpoint();
    EXPECT_EQ(recovery_point(), 16);
    log->truncate_to(8);
    manager->checkpoint();
    EXPECT_EQ(recovery_point(), 8);
}

TEST_F(Manager, RemoveDeletesDataAndLeftoverDeleteDirsGoAtStartup) {
    {
        auto manager = open();
        auto log = manager->get_or_create({"gone", 0}, test::small_segments());
        test::append_batches(*log, 3);
        auto parent = manager->dir_of({"gone", 0});
        EXPECT_TRUE(manager->remove({"gone", 0}));
        EXPECT_FALSE(manager->remove({"gone", 0}));
        EXPECT_FALSE(manager->get({"gone", 0}));
        EXPECT_EQ(log->read(0).error, ErrorCode::unknown_topic_or_partition);
        EXPECT_FALSE(std::filesystem::exists(parent / "gone-0"));
        manager->wait_for_deletions();
        for (const auto& e : std::filesystem::directory_iterator(parent)) EXPECT_FALSE(e.is_directory()) << e.path();
        manager->shutdown();
    }
    auto stale = dirs[1] / "x-0.0123456789abcdef0123456789abcdef-delete";
    std::filesystem::create_directories(stale);
    std::ofstream(stale / "00000000000000000000.log") << "junk";
    auto manager = open();
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(manager->partitions().empty());
}

TEST_F(Manager, ALogRecreatedAfterRemovalDoesNotInheritItsCheckpoints) {
    const TopicPartition tp{"again", 0};
    auto manager = open({dirs[0]});
    auto old = manager->get_or_create(tp, test::small_segments());
    test::append_batches(*old, 5);
    old->flush();
    manager->checkpoint();
    ASSERT_EQ(read_checkpoint_file(dirs[0] / kRecoveryPointCheckpointFile).at(tp), 20);
    ASSERT_TRUE(manager->remove(tp));
    // Recreated before the next periodic checkpoint: a crash now must not
    // give the new, empty log the old one's recovery point.
    auto fresh = manager->get_or_create(tp, test::small_segments());
    EXPECT_FALSE(read_checkpoint_file(dirs[0] / kRecoveryPointCheckpointFile).contains(tp));
    EXPECT_FALSE(read_checkpoint_file(dirs[0] / kLogStartOffsetCheckpointFile).contains(tp));
    EXPECT_EQ(fresh->log_end_offset(), 0);
}

TEST_F(Manager, RemovalsWriteTheCheckpointsOnceAtTheNextCheckpoint) {
    auto manager = open({dirs[0]});
    for (int p = 0; p < 3; ++p) test::append_batches(*manager->get_or_create({"many", p}, test::small_segments()), 2);
    manager->checkpoint();
    for (int p = 0; p < 3; ++p) ASSERT_TRUE(manager->remove({"many", p}));
    EXPECT_EQ(read_checkpoint_file(dirs[0] / kLogStartOffsetCheckpointFile).size(), 3u);
    manager->checkpoint();
    EXPECT_TRUE(read_checkpoint_file(dirs[0] / kLogStartOffsetCheckpointFile).empty());
}

TEST_F(Manager, NonPartitionDirsAreIgnored) {
    std::filesystem::create_directories(dirs[0] / "lost+found");
    std::filesystem::create_directories(dirs[0] / "foo-bar");
    auto manager = open();
    EXPECT_TRUE(manager->partitions().empty());
}

TEST_F(Manager, LogDirIsLockedAgainstASecondManager) {
    auto manager = open();
    EXPECT_THROW(open(), StorageError);
}

TEST_F(Manager, PartitionInTwoDirsIsAnError) {
    std::filesystem::create_directories(dirs[0] / "dup-0");
    std::filesystem::create_directories(dirs[1] / "dup-0");
    EXPECT_THROW(open(), StorageError);
}

// Kafka's num.recovery.threads.per.data.dir: logs of every dir load at once,
// several per dir; after a crash each is recovered (a torn tail cut) as a
// serial load would, and the files opened meanwhile end within the shared
// budget of open files.
struct ParallelRecovery : Manager {
    static constexpr int kPartitions = 36;
    std::map<TopicPartition, std::int64_t> ends;
    std::mutex mutex;
    std::set<std::thread::id> loaders;  // threads other than the test's that read the clock while loading

    ParallelRecovery() {
        {
            auto manager = open();
            for (int p = 0; p < kPartitions; ++p) {
                auto log = manager->get_or_create({"par", p}, test::small_segments());
                test::append_batches(*log, 5 + p % 7);
                ends[{"par", p}] = log->log_end_offset();
            }
            manager->checkpoint();
            // No shutdown(): a crash, with a torn batch at the end of some logs.
            for (int p = 0; p < kPartitions; p += 5) {
                auto dir = manager->dir_of({"par", p}) / ("par-" + std::to_string(p));
                std::filesystem::path active;
                for (const auto& e : std::filesystem::directory_iterator(dir))
                    if (e.path().extension() == ".log" && (active.empty() || e.path() > active)) active = e.path();
                std::ofstream(active, std::ios::app | std::ios::binary) << std::string(30, '\x7f');
            }
        }
        clock = [this, test_thread = std::this_thread::get_id()] {
            std::lock_guard lock(mutex);
            if (std::this_thread::get_id() != test_thread) loaders.insert(std::this_thread::get_id());
            return std::int64_t{1'000'000};
        };
    }

    // Loads with `threads` per dir and a budget of `budget` files, reads every record back.
    void recover_and_check(std::size_t threads, std::size_t budget) {
        const auto before = test::open_descriptors();
        auto manager = open({}, threads, budget);
        ASSERT_EQ(manager->partitions().size(), static_cast<std::size_t>(kPartitions));
        ASSERT_NE(manager->open_files(), nullptr);
        EXPECT_LE(manager->open_files()->open(), budget);
        EXPECT_LE(test::open_descriptors(), before + dirs.size() + budget);
        for (const auto& [tp, end] : ends) {
            auto log = manager->get(tp);
            ASSERT_TRUE(log) << tp.to_string();
            EXPECT_EQ(log->log_end_offset(), end) << tp.to_string();
            EXPECT_EQ(records_read_back(*log), end) << tp.to_string();
        }
        // 36 logs of several segments: the shared budget is full, so every
        // log's files count against it (none stayed with a worker's share).
        EXPECT_EQ(manager->open_files()->open(), budget);
        EXPECT_LE(test::open_descriptors(), before + dirs.size() + budget);
        // Appends after the load go to the recovered active segments.
        for (const auto& [tp, end] : ends) test::append_batches(*manager->get(tp), 1);
        for (const auto& [tp, end] : ends) EXPECT_EQ(records_read_back(*manager->get(tp)), end + 4) << tp.to_string();
        EXPECT_LE(test::open_descriptors(), before + dirs.size() + budget);
    }
};

TEST_F(ParallelRecovery, ACrashRecoveredBySeveralThreadsPerDirMatchesASerialLoad) {
    recover_and_check(4, 48);  // room for 6 workers of 8 files: 2 per dir
    EXPECT_EQ(loaders.size(), 6u);
}

TEST_F(ParallelRecovery, ABudgetTooSmallToShareLoadsOneLogAtATime) {
    recover_and_check(4, 16);  // 3 dirs, but only 2 shares of 8 files
    EXPECT_TRUE(loaders.empty());
}

TEST_F(Manager, AFailureInOneParallelLoadFailsTheStartAndLeavesTheDirsAsTheyWere) {
    {
        auto manager = open();
        for (int p = 0; p < 12; ++p) test::append_batches(*manager->get_or_create({"f", p}, test::small_segments()), 2);
        manager->shutdown();
    }
    // An index that cannot be opened (a directory where the file should be).
    auto broken = dirs[0];
    for (const auto& d : dirs)
        for (const auto& e : std::filesystem::directory_iterator(d))
            if (e.is_directory()) broken = e.path();
    std::filesystem::remove(broken / "00000000000000000000.index");
    std::filesystem::create_directory(broken / "00000000000000000000.index");
    EXPECT_THROW(open({}, 3, 64), StorageError);
    EXPECT_THROW(open({}, 1, 64), StorageError);
    // Still a clean shutdown for the next start once the index is mended.
    for (const auto& d : dirs) EXPECT_TRUE(std::filesystem::exists(d / ".kafka_cleanshutdown")) << d;
}

TEST_F(Manager, RetentionAndTopicConfig) {
    auto manager = open();
    auto log = manager->get_or_create({"r", 0}, test::small_segments());
    test::append_batches(*log, 12);
    auto config = test::small_segments();
    config.retention_bytes = 0;
    manager->set_topic_config("r", config);
    // Nothing the partition layer has not made visible ages out.
    manager->set_visible_offsets([](const TopicPartition&) { return VisibleOffsets{0, 0}; });
    EXPECT_EQ(manager->enforce_retention(), 0u);
    manager->set_visible_offsets({});
    EXPECT_GT(manager->enforce_retention(), 0u);
    EXPECT_EQ(log->segment_count(), 1u);
    auto starts = read_checkpoint_file(manager->dir_of({"r", 0}) / "log-start-offset-checkpoint");
    EXPECT_EQ(starts.at(TopicPartition{"r", 0}), log->log_start_offset());
}

TEST(TopicPartitionNames, ParseAndFormat) {
    EXPECT_EQ(parse_partition_dir_name("a-b-c-12"), (TopicPartition{"a-b-c", 12}));
    EXPECT_EQ(parse_partition_dir_name("my.topic-0"), (TopicPartition{"my.topic", 0}));
    EXPECT_EQ(parse_partition_dir_name("__consumer_offsets-49"), (TopicPartition{"__consumer_offsets", 49}));
    EXPECT_FALSE(parse_partition_dir_name("t-0.0123456789abcdef0123456789abcdef-delete"));
    EXPECT_FALSE(parse_partition_dir_name("nodash"));
    EXPECT_FALSE(parse_partition_dir_name("-5"));
    EXPECT_FALSE(parse_partition_dir_name("t-"));
    EXPECT_FALSE(parse_partition_dir_name("t-99999999999"));
    EXPECT_EQ(partition_dir_name({"x.y-z", 7}), "x.y-z-7");
    EXPECT_EQ(segment_file_name(42, kLogSuffix), "00000000000000000042.log");
    EXPECT_EQ(parse_segment_file_name("00000000000000000042.timeindex", kTimeIndexSuffix), 42);
    EXPECT_FALSE(parse_segment_file_name("0000000000000000042.log", kLogSuffix));
    EXPECT_FALSE(parse_segment_file_name("00000000000000000042.log.tmp", kLogSuffix));
}

TEST(CheckpointFile, RoundTripMissingAndMalformed) {
    TempDir tmp;
    auto path = tmp.path() / "cp";
    bool ok = false;
    EXPECT_TRUE(read_checkpoint_file(path, &ok).empty());
    EXPECT_TRUE(ok);
    OffsetCheckpoint cp{{{"a-b", 0}, 5}, {{"c.d", 3}, 1234567890123}};
    write_checkpoint_file(path, cp);
    EXPECT_EQ(read_checkpoint_file(path, &ok), cp);
    EXPECT_TRUE(ok);
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / "cp.tmp"));
    std::ofstream(path) << "0\n2\na 0 1\n";
    EXPECT_TRUE(read_checkpoint_file(path, &ok).empty());
    EXPECT_FALSE(ok);
    std::ofstream(path) << "1\n0\n";
    EXPECT_TRUE(read_checkpoint_file(path, &ok).empty());
    EXPECT_FALSE(ok);
}

TEST_F(Manager, CheckpointsAreRewrittenOnlyWhenTheyChange) {
    auto manager = open({dirs[0]});
    auto log = manager->get_or_create({"t", 0}, test::small_segments());
    test::append_batches(*log, 2);
    const auto file = dirs[0] / kRecoveryPointCheckpointFile;
    auto inode = [&] {
        struct stat st {};
        EXPECT_EQ(::stat(file.c_str(), &st), 0);
        return st.st_ino;
    };
    manager->checkpoint();
    const auto first = inode();
    manager->checkpoint();
    EXPECT_EQ(inode(), first) << "unchanged checkpoints are not rewritten";
    log->flush();  // moves the recovery point
    manager->checkpoint();
    EXPECT_NE(inode(), first);
    bool ok = false;
    EXPECT_EQ(read_checkpoint_file(file, &ok).at({"t", 0}), log->log_end_offset());
    EXPECT_TRUE(ok);
    manager->shutdown();
}

// Kafka's LogDirFailureChannel: a dir whose disk fails (here: the dir is gone
// from under the broker) goes offline for good; the other dirs carry on.
TEST_F(Manager, ADirWhoseDiskFailsGoesOfflineAndTheOthersCarryOn) {
    std::vector<std::string> offline;
    LogManagerOptions o;
    o.log_dirs = {dirs[0], dirs[1]};
    o.config_for_topic = [](const std::string&) { return test::small_segments(); };
    o.on_dir_offline = [&](const std::filesystem::path& dir, const std::string&) { offline.push_back(dir.string()); };
    LogManager manager(o);
    auto a = manager.get_or_create({"a", 0}, test::small_segments());
    auto b = manager.get_or_create({"b", 0}, test::small_segments());
    ASSERT_EQ(manager.dir_of({"b", 0}), dirs[1]);
    test::append_batches(*a, 2);
    test::append_batches(*b, 2);

    std::filesystem::remove_all(dirs[1]);
    a->flush();
    b->flush();  // the recovery points move: the checkpoints are rewritten
    manager.checkpoint();

    EXPECT_EQ(offline, std::vector<std::string>{dirs[1].string()});
    ASSERT_EQ(manager.offline_dirs().size(), 1u);
    EXPECT_NE(manager.offline_dirs()[0].second.find("No such file"), std::string::npos);
    EXPECT_TRUE(b->offline());
    EXPECT_FALSE(a->offline());
    EXPECT_FALSE(manager.all_dirs_offline());
    EXPECT_EQ(read_checkpoint_file(dirs[0] / kRecoveryPointCheckpointFile).at({"a", 0}), a->log_end_offset());
    // Nothing more is tried there, and new partitions go to the dir that works.
    manager.checkpoint();
    manager.flush_due();
    manager.enforce_retention();
    EXPECT_EQ(offline.size(), 1u);
    manager.get_or_create({"c", 0}, test::small_segments());
    EXPECT_EQ(manager.dir_of({"c", 0}), dirs[0]);
    EXPECT_TRUE(manager.remove({"b", 0}));

    manager.shutdown();
    EXPECT_TRUE(std::filesystem::exists(dirs[0] / ".kafka_cleanshutdown"));
    EXPECT_FALSE(std::filesystem::exists(dirs[1]));
}

TEST_F(Manager, AFullDiskOrALogicErrorLeavesTheDirOnline) {
    std::vector<std::string> offline;
    LogDirHealth health(dirs[0],
                        [&](const std::filesystem::path& dir, const std::string&) { offline.push_back(dir.string()); });
    EXPECT_FALSE(health.failed(StorageError("write: No space left on device", ENOSPC)));
    EXPECT_FALSE(health.failed(StorageError("write: Disk quota exceeded", EDQUOT)));
    EXPECT_FALSE(health.failed(StorageError("time index full")));
    EXPECT_FALSE(health.offline());
    EXPECT_TRUE(health.failed(StorageError("write: Input/output error", EIO)));
    EXPECT_TRUE(health.failed(StorageError("write: Read-only file system", EROFS)));
    EXPECT_EQ(offline.size(), 1u);
    EXPECT_EQ(health.reason(), "write: Input/output error");
}

TEST_F(Manager, EveryDirOfflineRefusesNewPartitions) {
    LogManagerOptions o;
    o.log_dirs = {dirs[0]};
    LogManager manager(o);
    auto a = manager.get_or_create({"a", 0}, LogConfig{});
    test::append_batches(*a, 1);
    std::filesystem::remove_all(dirs[0]);
    a->flush();
    manager.checkpoint();
    EXPECT_TRUE(manager.all_dirs_offline());
    EXPECT_THROW(manager.get_or_create({"b", 0}, LogConfig{}), StorageError);
    manager.shutdown();  // nothing to flush or mark: no throw
}

TEST_F(Manager, LogDirsAreSpelledOneWay) {
    auto manager = open({dirs[0].string() + "/", dirs[1].string() + "/./"});
    EXPECT_EQ(manager->log_dirs(), (std::vector<std::filesystem::path>{dirs[0], dirs[1]}));
    auto log = manager->get_or_create({"t", 0}, LogConfig{});
    // What the partition layer keys its per-dir files by.
    EXPECT_EQ(log->dir().parent_path(), manager->dir_of({"t", 0}));
    manager->shutdown();
}

}  // namespace
}  // namespace weir::storage
