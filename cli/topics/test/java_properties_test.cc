#include "cli/topics/java_properties.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace weir::cli::topics {
namespace {

using Props = std::map<std::string, std::string>;

TEST(JavaProperties, SeparatorsCommentsAndBlanks) {
    const auto p = parse_java_properties(
        "# a comment\n"
        "! another\n"
        "\n"
        "   security.protocol=SASL_SSL\n"
        "sasl.mechanism : PLAIN\n"
        "client.id weir\n"
        "empty=\n"
        "spaced   =   value with spaces  \n"
        "key=first\r\n"
        "key=second\r"
        "last=no newline");
    EXPECT_EQ(p, (Props{{"security.protocol", "SASL_SSL"},
                        {"sasl.mechanism", "PLAIN"},
                        {"client.id", "weir"},
                        {"empty", ""},
                        {"spaced", "value with spaces  "},
                        {"key", "second"},
                        {"last", "no newline"}}));
}

TEST(JavaProperties, ContinuationsAndEscapes) {
    const auto p = parse_java_properties(
        "sasl.jaas.config=org.example.Login required \\\n"
        "    username=\"u\" \\\n"
        "    password=\"p\";\n"
        "path=C:\\\\dir\\\\file\n"
        "a\\=b=c\n"
        "tab=x\\ty\n"
        "unicode=\\u00e9\n"
        "even=ends in backslash\\\\\n"
        "next=line\n");
    EXPECT_EQ(p.at("sasl.jaas.config"), "org.example.Login required username=\"u\" password=\"p\";");
    EXPECT_EQ(p.at("path"), "C:\\dir\\file");
    EXPECT_EQ(p.at("a=b"), "c");
    EXPECT_EQ(p.at("tab"), "x\ty");
    EXPECT_EQ(p.at("unicode"), "\xC3\xA9");
    EXPECT_EQ(p.at("even"), "ends in backslash\\");
    EXPECT_EQ(p.at("next"), "line");
}

TEST(JavaProperties, LoadReportsAMissingFileAsJavaDoes) {
    try {
        load_java_properties("/nonexistent/admin.properties");
        ADD_FAILURE() << "loaded";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/admin.properties (No such file or directory)");
    }
    const auto path =
        std::filesystem::temp_directory_path() / ("weir-topics-props-" + std::to_string(::getpid()) + ".properties");
    std::ofstream(path) << "default.api.timeout.ms=1500\n";
    EXPECT_EQ(load_java_properties(path.string()), (Props{{"default.api.timeout.ms", "1500"}}));
    std::filesystem::remove(path);
}

}  // namespace
}  // namespace weir::cli::topics
