# Placeholder until the generator lands.
set(WEIR_GENERATED_SOURCES "")
set(WEIR_GENERATED_TEST_SOURCES "")
set(WEIR_GENERATED_INCLUDE_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
