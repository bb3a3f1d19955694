#include "broker/config/properties.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "broker/common/temp_dir.h"
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

// Java decodes each \uXXXX to one UTF-16 unit, so Properties.store and native2ascii write a
// character beyond the BMP as two escapes; it must come out as one 4-byte UTF-8 sequence. A surrogate
// without its partner has no UTF-8 encoding; U+FFFD keeps the output valid UTF-8.
TEST(PropertiesTest, SurrogatePairEscapesAreOneCodePoint) {
    auto p = parse_properties(
        "smile=\\uD83D\\uDE00\n"
        "lower=\\ud83d\\ude00\n"
        "key\\uD834\\uDD1E=clef\n"
        "mixed=a\\uD83D\\uDE00b\\u00e9\\uD83D\\uDE01\n"
        "high_then_text=\\uD83Dx\n"
        "high_then_bmp=\\uD83D\\u0041\n"
        "high_then_escape=\\uD83D\\t\n"
        "two_highs=\\uD83D\\uD83D\\uDE00\n"
        "low_alone=\\uDE00\n"
        "reversed=\\uDE00\\uD83D\n"
        "high_at_end=\\uD83D\n");
    EXPECT_EQ(p.at("smile"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(p.at("lower"), "\xF0\x9F\x98\x80");
    EXPECT_EQ(p.at("key\xF0\x9D\x84\x9E"), "clef");
    EXPECT_EQ(p.at("mixed"),
              "a\xF0\x9F\x98\x80"
              "b\xC3\xA9\xF0\x9F\x98\x81");
    EXPECT_EQ(p.at("high_then_text"), "\xEF\xBF\xBDx");
    EXPECT_EQ(p.at("high_then_bmp"),
              "\xEF\xBF\xBD"
              "A");
    EXPECT_EQ(p.at("high_then_escape"), "\xEF\xBF\xBD\t");
    EXPECT_EQ(p.at("two_highs"), "\xEF\xBF\xBD\xF0\x9F\x98\x80");
    EXPECT_EQ(p.at("low_alone"), "\xEF\xBF\xBD");
    EXPECT_EQ(p.at("reversed"), "\xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(p.at("high_at_end"), "\xEF\xBF\xBD");
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

// What a kafka-topics.sh --command-config file for a SASL cluster looks like.
TEST(PropertiesTest, ClientConfigFile) {
    auto p = parse_properties(
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
    EXPECT_EQ(p, (ConfigMap{{"security.protocol", "SASL_SSL"},
                            {"sasl.mechanism", "PLAIN"},
                            {"client.id", "weir"},
                            {"empty", ""},
                            {"spaced", "value with spaces  "},
                            {"key", "second"},
                            {"last", "no newline"}}));
}

TEST(PropertiesTest, ClientConfigContinuationsAndEscapes) {
    auto p = parse_properties(
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

TEST(PropertiesTest, LoadFile) {
    TempDir dir("weir-props");
    auto file = dir.path() / "server.properties";
    std::ofstream(file) << "broker.id=7\nlog.dirs=/tmp/x\n";
    auto p = load_properties_file(file);
    EXPECT_EQ(p, (ConfigMap{{"broker.id", "7"}, {"log.dirs", "/tmp/x"}}));
}

// Worded as Java's FileInputStream: kafka-topics.sh prints exactly this for a bad --command-config.
TEST(PropertiesTest, LoadReportsAnUnreadableFileAsJavaDoes) {
    TempDir dir("weir-props");
    auto expect_error = [](const std::filesystem::path& path, const std::string& message) {
        try {
            load_properties_file(path);
            ADD_FAILURE() << "loaded " << path;
        } catch (const ConfigError& e) {
            EXPECT_EQ(e.what(), message);
        }
    };
    expect_error(dir.path() / "missing.properties",
                 (dir.path() / "missing.properties").string() + " (No such file or directory)");
    expect_error(dir.path(), dir.path().string() + " (Is a directory)");
}

TEST(PropertiesTest, LoadNamesTheFileOfAParseError) {
    TempDir dir("weir-props");
    auto file = dir.path() / "bad.properties";
    std::ofstream(file) << "ok=1\nbad=\\u12\n";
    try {
        load_properties_file(file);
        ADD_FAILURE() << "loaded";
    } catch (const ConfigError& e) {
        EXPECT_EQ(e.what(), file.string() + ": Malformed \\uxxxx encoding on line 2");
    }
}

}  // namespace
}  // namespace weir::config
