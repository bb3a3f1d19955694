#pragma once
// Helpers the config tests share.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "broker/config/broker_config.h"
#include "broker/config/describe_configs.h"

namespace weir::config {

inline BrokerConfig broker(const ConfigMap& props) {
    std::vector<std::string> warnings;
    return build_broker_config(props, warnings);
}

// The entry named `name`; a test failure (and an empty entry) when there is none.
inline const ConfigEntry& entry(const std::vector<ConfigEntry>& entries, std::string_view name) {
    for (const auto& e : entries)
        if (e.name == name) return e;
    ADD_FAILURE() << "no entry " << name;
    static const ConfigEntry none;
    return none;
}

}  // namespace weir::config
