#include "broker/storage/leader_epoch_checkpoint.h"

#include <fstream>
#include <sstream>
#include <string>

#include "broker/storage/file.h"

namespace weir::storage {

void write_leader_epoch_checkpoint(const std::filesystem::path& dir, const EpochStarts& epochs) {
    std::string content = "0\n" + std::to_string(epochs.size()) + "\n";
    for (const auto& [epoch, start] : epochs) content += std::to_string(epoch) + " " + std::to_string(start) + "\n";
    write_file_atomically(dir / kLeaderEpochCheckpointFile, content);
}

EpochStarts read_leader_epoch_checkpoint(const std::filesystem::path& dir) {
    std::ifstream in(dir / kLeaderEpochCheckpointFile);
    if (!in) return {};
    std::string line;
    if (!std::getline(in, line) || line != "0") return {};
    if (!std::getline(in, line)) return {};
    std::size_t count = 0;
    try {
        count = std::stoul(line);
    } catch (const std::exception&) {
        return {};
    }
    EpochStarts out;
    for (std::size_t i = 0; i < count; ++i) {
        if (!std::getline(in, line)) return {};
        std::istringstream fields(line);
        std::int32_t epoch = 0;
        std::int64_t start = 0;
        std::string extra;
        if (!(fields >> epoch >> start) || (fields >> extra)) return {};
        if (!out.empty() && (epoch <= out.back().first || start < out.back().second)) return {};
        out.emplace_back(epoch, start);
    }
    return out;
}

}  // namespace weir::storage
