#include "broker/config/properties.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "broker/config/config_error.h"

namespace weir::config {
namespace {

TEST(PropertiesTest, SeparatorsAndWhitespace) {
    auto p = parse_properties(
        "a=1\n"
        "b: 2\n"
        "c 3\n"
        "  d   =   4\n"
        "\te\t:\t5\n"
        "f = = 6\n"
        "g  x y\n");
    EXPECT_EQ(p.at("a"), "1");
    EXPECT_EQ(p.at("b"), "2");
    EXPECT_EQ(p.at("c"), "3");
    EXPECT_EQ(p.at("d"), "4");
    EXPECT_EQ(p.at("e"), "5");
    EXPECT_EQ(p.at("f"), "= 6");  // only the first separator is consumed
    EXPECT_EQ(p.at("g"), "x y");
    EXPECT_EQ(p.size(), 7U);
}

TEST(PropertiesTest, CommentsAndBlankLines) {
    auto p = parse_properties(
        "# comment\n"
        "! also a comment\n"
        "   # indented comment\n"
        "\n"
        "   \n"
        "url=http://h/#frag\n"
        "# comment ending in backslash \\\n"
        "next=yes\n");
    EXPECT_EQ(p.size(), 2U);
    EXPECT_EQ(p.at("url"), "http://h/#frag");
    EXPECT_EQ(p.at("next"), "yes");
}

TEST(PropertiesTest, LineContinuation) {
    auto p = parse_properties(
        "list = a,\\\n"
        "       b,\\\n"
        "   c\n"
        "even=x\\\\\n"
        "after=1\n"
        "eof=tail\\");
    EXPECT_EQ(p.at("list"), "a,b,c");
    EXPECT_EQ(p.at("even"), "x\\");  // two backslashes: an escaped backslash, no continuation
    EXPECT_EQ(p.at("after"), "1");
    EXPECT_EQ(p.at("eof"), "tail");
}

TEST(PropertiesTest, ContinuationLineStartingWithHashIsValue) {
    auto p = parse_properties("k=a\\\n  #b\n");
    EXPECT_EQ(p.at("k"), "a#b");
}

TEST(PropertiesTest, Escapes) {
    auto p = parse_properties(
        "tab=a\\tb\n"
        "nl=a\\nb\n"
        "cr=a\\rb\n"
        "ff=a\\fb\n"
        "other=\\q\\z\n"
        "uni=caf\\u00e9\n"
        "pair=\\uD83D\\uDE00\n"
        "lone=\\uD83Dx\n"
        "key\\=with\\:seps\\ and\\ spaces = v\n"
        "\\#notcomment=1\n");
    EXPECT_EQ(p.at("tab"), "a\tb");
    EXPECT_EQ(p.at("nl"), "a\nb");
    EXPECT_EQ(p.at("cr"), "a\rb");
    EXPECT_EQ(p.at("ff"), "a\fb");
    EXPECT_EQ(p.at("other"), "qz");
    EXPECT_EQ(p.at("uni"), "caf\xC3\xA9");
    EXPECT_EQ(p.at("pair"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(p.at("lone"), "\xEF\xBF\xBDx");
    EXPECT_EQ(p.at("key=with:seps and spaces"), "v");
    EXPECT_EQ(p.at("#notcomment"), "1");
}

TEST(PropertiesTest, MalformedUnicodeEscapeThrows) {
    EXPECT_THROW(parse_properties("a=\\u12\n"), ConfigError);
    EXPECT_THROW(parse_properties("a=\\u12G4\n"), ConfigError);
    try {
        parse_properties("ok=1\nbad=\\uXYZW\n");
        FAIL() << "expected ConfigError";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
}

TEST(PropertiesTest, TrailingWhitespaceKeptAndEmptyValues) {
    auto p = parse_properties("a=1  \nb=\nc\nd   \n");
    EXPECT_EQ(p.at("a"), "1  ");
    EXPECT_EQ(p.at("b"), "");
    EXPECT_EQ(p.at("c"), "");
    EXPECT_EQ(p.at("d"), "");
}

TEST(PropertiesTest, LineEndings) {
    auto p = parse_properties("a=1\r\nb=2\rc=3\n\r\nd=4\\\r\n  5");
    EXPECT_EQ(p.at("a"), "1");
    EXPECT_EQ(p.at("b"), "2");
    EXPECT_EQ(p.at("c"), "3");
    EXPECT_EQ(p.at("d"), "45");
    EXPECT_EQ(p.size(), 4U);
}

TEST(PropertiesTest, LaterKeyWins) {
    auto p = parse_properties("a=1\na=2\n");
    EXPECT_EQ(p.at("a"), "2");
}

TEST(PropertiesTest, LoadFile) {
    auto dir = std::filesystem::temp_directory_path() / ("weir-props-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto file = dir / "server.properties";
    {
        std::ofstream out(file);
        out << "broker.id=7\nlog.dirs=/tmp/x\n";
    }
    auto p = load_properties_file(file);
    EXPECT_EQ(p.at("broker.id"), "7");
    EXPECT_EQ(p.at("log.dirs"), "/tmp/x");
    EXPECT_THROW(load_properties_file(dir / "missing.properties"), ConfigError);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace weir::config
