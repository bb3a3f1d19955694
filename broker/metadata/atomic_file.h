#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace weir::metadata {

// Replaces `path` so that a crash leaves either the old or the new contents:
// write "<path>.tmp", fsync it, rename it over `path`, fsync the directory.
// Throws std::system_error; on failure `path` is untouched and the temporary
// file is removed.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// The whole file, or nullopt if it does not exist. Throws std::system_error
// on other errors.
std::optional<std::string> read_file_if_exists(const std::filesystem::path& path);

// "<path>.tmp", the name write_file_atomically writes first.
std::filesystem::path temporary_path_for(const std::filesystem::path& path);

}  // namespace weir::metadata
