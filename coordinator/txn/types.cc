#include "coordinator/txn/types.h"

#include <array>

namespace weir::coordinator::txn {

namespace {

constexpr std::array<std::string_view, 8> kNames = {
    "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence",
};

}  // namespace

std::string_view state_name(TxnState state) { return kNames.at(static_cast<std::size_t>(state)); }

std::optional<TxnState> state_from_name(std::string_view name) {
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name) return static_cast<TxnState>(i);
    return std::nullopt;
}

std::optional<TxnState> state_from_id(std::int8_t id) {
    if (id < 0 || id > static_cast<std::int8_t>(TxnState::prepare_epoch_fence)) return std::nullopt;
    return static_cast<TxnState>(id);
}

bool valid_transition(TxnState from, TxnState to) {
    using S = TxnState;
    switch (to) {
        case S::empty:
            return from == S::empty || from == S::complete_commit || from == S::complete_abort;
        case S::ongoing:
            return from == S::ongoing || from == S::empty || from == S::complete_commit || from == S::complete_abort;
        case S::prepare_commit:
            return from == S::ongoing;
        case S::prepare_abort:
            return from == S::ongoing || from == S::prepare_epoch_fence;
        case S::complete_commit:
            return from == S::prepare_commit;
        case S::complete_abort:
            return from == S::prepare_abort;
        case S::dead:
            return from == S::empty || from == S::complete_commit || from == S::complete_abort;
        case S::prepare_epoch_fence:
            return from == S::ongoing;
    }
    return false;
}

bool expiration_allowed(TxnState state) {
    return state == TxnState::empty || state == TxnState::complete_commit || state == TxnState::complete_abort;
}

}  // namespace weir::coordinator::txn
