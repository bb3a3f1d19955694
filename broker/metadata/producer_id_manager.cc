#include "broker/metadata/producer_id_manager.h"

namespace weir::metadata {

Task<ProducerIdResult> ProducerIdManager::generate() {
    auto exhausted = [this] { return !block_ || next_ > block_->last(); };
    if (exhausted()) {
        auto allocate = store_.allocate_producer_id_block();
        auto allocated = co_await std::move(allocate);
        if (!allocated.ok()) {
            ProducerIdResult failed;
            failed.error = allocated.error;
            failed.message = std::move(allocated.message);
            co_return failed;
        }
        // Another request may have fetched a block while this one waited:
        // either is fine, ids stay unique.
        if (exhausted()) {
            block_ = allocated.block;
            next_ = allocated.block.first;
        }
    }
    ProducerIdResult result;
    result.producer_id = next_++;
    co_return result;
}

}  // namespace weir::metadata
