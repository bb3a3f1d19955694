#include "broker/storage/open_files.h"

namespace weir::storage {

void OpenFiles::link_newest(Entry& e) {
    e.older_ = newest_;
    e.newer_ = nullptr;
    if (newest_ != nullptr) newest_->newer_ = &e;
    newest_ = &e;
    if (oldest_ == nullptr) oldest_ = &e;
}

void OpenFiles::unlink(Entry& e) noexcept {
    if (e.newer_ != nullptr)
        e.newer_->older_ = e.older_;
    else
        newest_ = e.older_;
    if (e.older_ != nullptr)
        e.older_->newer_ = e.newer_;
    else
        oldest_ = e.newer_;
    e.newer_ = e.older_ = nullptr;
}

void OpenFiles::Entry::opened() {
    if (!budget_) return;
    auto& b = *budget_;
    counted_ = true;
    ++b.open_;
    b.link_newest(*this);
    // The newest is never the oldest while more than one is open, and the
    // limit is at least kMinLimit: this entry is never its own victim.
    while (b.open_ > b.limit_ && b.oldest_ != this) {
        Entry& victim = *b.oldest_;
        victim.closed();
        ++b.evictions_;
        victim.close_for_budget();
    }
}

void OpenFiles::Entry::used() {
    if (!budget_ || !counted_ || budget_->newest_ == this) return;
    budget_->unlink(*this);
    budget_->link_newest(*this);
}

void OpenFiles::Entry::closed() noexcept {
    if (!budget_ || !counted_) return;
    counted_ = false;
    --budget_->open_;
    budget_->unlink(*this);
}

void OpenFiles::Entry::move_to(std::shared_ptr<OpenFiles> budget) noexcept {
    if (counted_) {
        closed();
        close_for_budget();
    }
    budget_ = std::move(budget);
}

}  // namespace weir::storage
