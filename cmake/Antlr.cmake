# Generates C++ from an ANTLR4 grammar into the build tree at build time. The Debian tool is
# ANTLR 4.7.2; its C++ output compiles against the 4.9 runtime (libantlr4-runtime-dev).
find_program(ANTLR4_TOOL antlr4 REQUIRED)

# antlr_generate(<target> <grammar.g4> <Name>) builds a static library <target> from the
# generated lexer, parser and visitor. The runtime headers are SYSTEM includes so their
# warnings do not drown ours.
function(antlr_generate target grammar name)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/generated)
  set(sources
    ${out}/${name}Lexer.cpp ${out}/${name}Parser.cpp
    ${out}/${name}Visitor.cpp ${out}/${name}BaseVisitor.cpp)
  add_custom_command(
    OUTPUT ${sources}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -visitor -no-listener -package attrib_antlr
            -o ${out} -Xexact-output-dir ${grammar}
    DEPENDS ${grammar}
    COMMENT "Generating the ${name} parser with ANTLR"
    VERBATIM)
  add_library(${target} STATIC ${sources})
  target_include_directories(${target} SYSTEM PUBLIC ${out} ${ANTLR4_INCLUDE_DIR})
  target_link_libraries(${target} PUBLIC antlr4_shared)
  # ANTLR 4.7.2 emits u8"" literals, which are char8_t in C++20.
  target_compile_options(${target} PRIVATE -w -fno-char8_t)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
