#include "broker/common/receive_watermark.h"

#include <sys/socket.h>

#include <algorithm>

namespace weir {

void ReceiveWatermark::expect(boost::asio::ip::tcp::socket& socket, std::size_t remaining) {
    // A mark still within what the frame owes stays: moving it with every
    // read would cost a system call each.
    if (static_cast<std::size_t>(current_) <= remaining && (current_ > 1 || remaining < kMinimum)) return;
    const int want = remaining < kMinimum ? 1 : static_cast<int>(std::min(remaining, kMaximum));
    if (want == current_ || !socket.is_open()) return;
    if (::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVLOWAT, &want, sizeof want) == 0) {
        current_ = want;
    } else if (want < current_) {
        // A mark it cannot lower would wait for bytes nobody owes: closed
        // instead, the reader fails now rather than hangs.
        boost::system::error_code ignored;
        socket.close(ignored);
    }
}

}  // namespace weir
