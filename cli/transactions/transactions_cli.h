#pragma once
// `weir transactions`: kafka-transactions.sh's list, describe,
// describe-producers and abort, over the Kafka protocol.
#include <ostream>
#include <string>
#include <vector>

namespace weir::cli::transactions {

// Exit codes: 0 done, 1 the cluster refused or failed, 2 a bad command line.
int transactions_main(const std::vector<std::string>& args);
int run_transactions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Columns padded to their widest cell, as Kafka's tools print tables.
std::string format_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace weir::cli::transactions
