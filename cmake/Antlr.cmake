# Generates C++ from an ANTLR4 grammar into the build tree at build time. The Debian tool is
# ANTLR 4.7.2; its C++ output compiles against the 4.9 runtime (libantlr4-runtime-dev).
find_program(ANTLR4_TOOL antlr4 REQUIRED)
find_program(SED_TOOL sed REQUIRED)

# antlr_generate(<target> <grammar.g4> <Name>) builds a static library <target> from the
# generated lexer, parser and visitor. The runtime headers are SYSTEM includes so their
# warnings do not drown ours.
#
# The runtime's umbrella header pulls in misc/InterpreterDataReader.h, which clang rejects (a
# struct default-constructs a member whose default constructor is deleted); GCC accepts it.
# Nothing here uses that header (nor XPath, whose lexer re-includes the umbrella), so the generated code includes a copy of the umbrella without
# it, letting the fuzzing build (clang) compile the parser too.
function(antlr_generate target grammar name)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/generated)
  file(READ ${ANTLR4_INCLUDE_DIR}/antlr4-runtime.h umbrella)
  string(REPLACE "#include \"misc/InterpreterDataReader.h\"" "" umbrella "${umbrella}")
  # XPath (unused) re-includes the full umbrella.
  string(REGEX REPLACE "#include \"tree/xpath/[A-Za-z]+\\.h\"" "" umbrella "${umbrella}")
  file(WRITE ${out}/antlr4-runtime-subset.h "${umbrella}")
  set(sources
    ${out}/${name}Lexer.cpp ${out}/${name}Parser.cpp
    ${out}/${name}Visitor.cpp ${out}/${name}BaseVisitor.cpp)
  set(headers
    ${out}/${name}Lexer.h ${out}/${name}Parser.h ${out}/${name}Visitor.h ${out}/${name}BaseVisitor.h)
  add_custom_command(
    OUTPUT ${sources} ${headers}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -visitor -no-listener -package attrib_antlr
            -o ${out} -Xexact-output-dir ${grammar}
    COMMAND ${SED_TOOL} -i "s|#include \"antlr4-runtime.h\"|#include \"antlr4-runtime-subset.h\"|" ${sources} ${headers}
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
