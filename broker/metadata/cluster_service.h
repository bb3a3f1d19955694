#pragma once
// A part of the broker that runs beside request handling for as long as the
// broker serves, such as the cluster controller. Started after the listeners
// are bound, stopped before storage closes; both on the I/O thread.
#include <boost/asio/awaitable.hpp>

namespace weir::metadata {

class ClusterService {
public:
    virtual ~ClusterService() = default;
    virtual void start() = 0;
    virtual void stop() = 0;
    // After stop(): resolves once the coroutines it started have ended.
    virtual boost::asio::awaitable<void> stopped() = 0;

protected:
    ClusterService() = default;
    ClusterService(const ClusterService&) = delete;
    ClusterService& operator=(const ClusterService&) = delete;
};

}  // namespace weir::metadata
