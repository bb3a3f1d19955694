#include "broker/storage/checkpoint_file.h"

#include <fstream>
#include <sstream>
#include <string>

#include "broker/storage/file.h"

namespace weir::storage {

void write_checkpoint_file(const std::filesystem::path& path, const OffsetCheckpoint& offsets) {
    std::string content = "0\n" + std::to_string(offsets.size()) + "\n";
    for (const auto& [tp, offset] : offsets)
        content += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(offset) + "\n";
    write_file_atomically(path, content);
}

OffsetCheckpoint read_checkpoint_file(const std::filesystem::path& path, bool* ok) {
    if (ok) *ok = true;
    std::ifstream in(path);
    if (!in) return {};
    auto fail = [&] {
        if (ok) *ok = false;
        return OffsetCheckpoint{};
    };
    std::string line;
    if (!std::getline(in, line) || line != "0") return fail();
    if (!std::getline(in, line)) return fail();
    std::size_t count = 0;
    try {
        count = std::stoul(line);
    } catch (const std::exception&) {
        return fail();
    }
    OffsetCheckpoint out;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::getline(in, line)) return fail();
        std::istringstream fields(line);
        TopicPartition tp;
        std::int64_t offset = 0;
        std::string extra;
        if (!(fields >> tp.topic >> tp.partition >> offset) || (fields >> extra)) return fail();
        out[tp] = offset;
    }
    if (std::getline(in, line) && !line.empty()) return fail();
    return out;
}

}  // namespace weir::storage
