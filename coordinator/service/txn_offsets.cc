// Transactional offset commits: TxnOffsetCommit stores offsets that stay
// pending until the transaction's marker reaches their __consumer_offsets
// partition.
#include "coordinator/service/coordinator_service.h"

namespace weir::coordinator {

void CoordinatorService::complete_transaction(std::int32_t, std::int64_t, bool) {
    // No transactional offsets exist yet: TxnOffsetCommit is not served.
}

}  // namespace weir::coordinator
