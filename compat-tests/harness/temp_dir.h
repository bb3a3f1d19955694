#pragma once
#include <filesystem>

namespace weir::compat {

// A fresh directory under the system temp dir. Removed on destruction unless
// keep() was called (tests keep it when they failed, for post-mortem).
class TempDir {
public:
    explicit TempDir(std::string_view prefix = "weir-compat");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    void keep() { keep_ = true; }

private:
    std::filesystem::path path_;
    bool keep_ = false;
};

}  // namespace weir::compat
