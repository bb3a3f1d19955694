#pragma once
// The change listeners of a metadata store: added and removed from any
// thread, called outside the lock (a listener may add or remove listeners,
// or read the store) in the order they were added.
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "broker/metadata/metadata_store.h"

namespace weir::metadata {

class ChangeListeners {
public:
    MetadataStore::ListenerId add(MetadataStore::ChangeListener listener) {
        std::lock_guard lock(mutex_);
        const auto id = next_id_++;
        listeners_.emplace_back(id, std::make_shared<MetadataStore::ChangeListener>(std::move(listener)));
        return id;
    }

    void remove(MetadataStore::ListenerId id) {
        std::lock_guard lock(mutex_);
        std::erase_if(listeners_, [&](const auto& entry) { return entry.first == id; });
    }

    // Each change to every listener registered when the call began.
    void notify(const std::vector<MetadataChange>& changes) const {
        std::vector<std::shared_ptr<MetadataStore::ChangeListener>> current;
        {
            std::lock_guard lock(mutex_);
            for (const auto& [id, l] : listeners_) current.push_back(l);
        }
        for (const auto& change : changes)
            for (const auto& l : current) (*l)(change);
    }

private:
    mutable std::mutex mutex_;
    std::vector<std::pair<MetadataStore::ListenerId, std::shared_ptr<MetadataStore::ChangeListener>>> listeners_;
    MetadataStore::ListenerId next_id_ = 1;
};

}  // namespace weir::metadata
