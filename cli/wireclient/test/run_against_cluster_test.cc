// The exit codes and messages the wire-protocol tools share.
#include <gtest/gtest.h>

#include <boost/asio/error.hpp>
#include <boost/system/system_error.hpp>
#include <sstream>
#include <stdexcept>

#include "cli/wireclient/wire_client.h"

namespace weir::cli::wireclient {
namespace {

TEST(RunAgainstCluster, ExitCodesAndMessages) {
    std::ostringstream err;
    EXPECT_EQ(run_against_cluster("tool", err, [] {}), 0);
    EXPECT_EQ(err.str(), "");
    EXPECT_EQ(run_against_cluster("tool", err, [] { throw std::invalid_argument("not host:port: x"); }), 2);
    EXPECT_EQ(err.str(), "weir tool: not host:port: x\n");
    err.str("");
    EXPECT_EQ(run_against_cluster("tool", err, [] { throw boost::system::system_error(boost::asio::error::eof); }), 1);
    EXPECT_NE(err.str().find("closed the connection"), std::string::npos);
    err.str("");
    EXPECT_EQ(run_against_cluster("tool", err, [] { throw std::runtime_error("broker 9 is not in the cluster"); }), 1);
    EXPECT_EQ(err.str(), "Error: broker 9 is not in the cluster\n");
}

}  // namespace
}  // namespace weir::cli::wireclient
