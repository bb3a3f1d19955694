#pragma once
// A budget of segment files held open (a .log's descriptor) or mapped (an
// index) at once, shared by a broker's logs. Past it the least recently used
// are closed, and reopened when next needed, so descriptors and mappings
// follow a setting rather than the number of partitions (Kafka keeps every
// one open and asks operators for a high ulimit). Single-threaded, like the
// logs it serves.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace weir::storage {

class OpenFiles {
public:
    // Fewer than kMinLimit would let one segment's own files push each other out.
    static constexpr std::size_t kMinLimit = 8;

    explicit OpenFiles(std::size_t limit) : limit_(limit < kMinLimit ? kMinLimit : limit) {}
    OpenFiles(const OpenFiles&) = delete;
    OpenFiles& operator=(const OpenFiles&) = delete;

    [[nodiscard]] std::size_t limit() const { return limit_; }
    [[nodiscard]] std::size_t open() const { return open_; }
    // Files closed to stay within the limit (reopened if used again).
    [[nodiscard]] std::uint64_t closed_for_budget() const { return evictions_; }

    // One file's open state, counted against a budget (none: never closed
    // for one). Its owner calls opened() after opening (not while open), used() on every use,
    // closed() when it closes the file itself; the budget calls
    // close_for_budget() to take it back. A pointer into the file must not be
    // kept across the opening of another entry.
    class Entry {
    public:
        Entry(const Entry&) = delete;
        Entry& operator=(const Entry&) = delete;

    protected:
        explicit Entry(std::shared_ptr<OpenFiles> budget) : budget_(std::move(budget)) {}
        virtual ~Entry() { closed(); }

        void opened();
        void used();
        void closed() noexcept;
        virtual void close_for_budget() noexcept = 0;
        // Closes the file if open and counts it against `budget` from now on.
        // Touches neither budget's list of open files beyond this entry's own:
        // a log loaded on another thread with a budget of its own moves to the
        // shared one without taking it.
        void move_to(std::shared_ptr<OpenFiles> budget) noexcept;

    private:
        friend class OpenFiles;
        std::shared_ptr<OpenFiles> budget_;
        Entry* newer_ = nullptr;
        Entry* older_ = nullptr;
        bool counted_ = false;
    };

private:
    void link_newest(Entry& e);
    void unlink(Entry& e) noexcept;

    std::size_t limit_;
    std::size_t open_ = 0;
    std::uint64_t evictions_ = 0;
    Entry* newest_ = nullptr;
    Entry* oldest_ = nullptr;
};

}  // namespace weir::storage
