# Generates the Kafka message codecs from protocol/defs/*.def at build time
# (protocol/gen/README.md). Outputs live only in the build tree.
#
# Sets WEIR_GENERATED_SOURCES, WEIR_GENERATED_TEST_SOURCES and
# WEIR_GENERATED_INCLUDE_DIR for protocol/CMakeLists.txt.

set(WEIR_GEN_DIR ${CMAKE_CURRENT_LIST_DIR})
set(WEIR_DEFS_DIR ${CMAKE_CURRENT_LIST_DIR}/../defs)
set(WEIR_GENERATED_INCLUDE_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)

file(GLOB WEIR_DEFS CONFIGURE_DEPENDS ${WEIR_DEFS_DIR}/*.def)
list(SORT WEIR_DEFS)

set(WEIR_GENERATED_HEADERS ${WEIR_GENERATED_INCLUDE_DIR}/messages/api_table.h)
foreach(def ${WEIR_DEFS})
  get_filename_component(stem ${def} NAME_WE)
  list(APPEND WEIR_GENERATED_HEADERS ${WEIR_GENERATED_INCLUDE_DIR}/messages/${stem}.h)
endforeach()
# One header per definition file, but the code is spread over a fixed number
# of translation units (CODEC_GROUPS and TEST_GROUPS in codegen.py): parsing
# the std headers once per group instead of once per API halves compile time.
set(WEIR_GENERATED_SOURCES "")
set(WEIR_GENERATED_TEST_SOURCES "")
foreach(k RANGE 3)
  list(APPEND WEIR_GENERATED_SOURCES ${WEIR_GENERATED_INCLUDE_DIR}/messages/codecs_${k}.cc)
  list(APPEND WEIR_GENERATED_TEST_SOURCES ${WEIR_GENERATED_INCLUDE_DIR}/tests/generated_subjects_${k}.cc)
endforeach()
set(WEIR_GENERATED_OUTPUTS ${WEIR_GENERATED_HEADERS} ${WEIR_GENERATED_SOURCES} ${WEIR_GENERATED_TEST_SOURCES})

# codegen.py rewrites only files whose content changed; listing them as
# byproducts (restat) keeps untouched outputs from triggering recompiles.
set(WEIR_GEN_STAMP ${WEIR_GENERATED_INCLUDE_DIR}/codegen.stamp)
add_custom_command(
  OUTPUT ${WEIR_GEN_STAMP}
  BYPRODUCTS ${WEIR_GENERATED_OUTPUTS}
  COMMAND ${Python3_EXECUTABLE} ${WEIR_GEN_DIR}/codegen.py
          --defs ${WEIR_DEFS_DIR} --out ${WEIR_GENERATED_INCLUDE_DIR} --stamp ${WEIR_GEN_STAMP}
  DEPENDS ${WEIR_DEFS} ${WEIR_GEN_DIR}/codegen.py ${WEIR_GEN_DIR}/defs.py
  COMMENT "Generating Kafka message codecs from protocol/defs"
  VERBATIM)
# For targets outside protocol/ that want the headers without linking weir_protocol.
add_custom_target(weir_generated_messages DEPENDS ${WEIR_GEN_STAMP})

# Hand-written runtime support and test driver for the generated code.
list(APPEND WEIR_GENERATED_SOURCES ${WEIR_GEN_DIR}/codec_support.cc)
list(APPEND WEIR_GENERATED_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/../test/generated_roundtrip.cc)

if(WEIR_KAFKA_SPECS_DIR)
  set(WEIR_SPECS_ARGS ${WEIR_KAFKA_SPECS_DIR})
else()
  set(WEIR_SPECS_ARGS --cache ${CMAKE_BINARY_DIR}/kafka-specs)
endif()
add_test(NAME defs_match_specs
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/../test/defs_match_specs_test.py ${WEIR_SPECS_ARGS})
# 77: the specs could not be had (no Maven, no network), which ctest shows as a skip, not a pass.
# The first run downloads two jars.
set_tests_properties(defs_match_specs PROPERTIES SKIP_RETURN_CODE 77 LABELS unit TIMEOUT 600)
