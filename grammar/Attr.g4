// The grammar of the .attr rule language (docs/language.md is its reference).
//
// Only compiler/parser.cc sees the code ANTLR generates from this file: it converts the parse
// tree into attrib's own AST (compiler/ast.h). Generated code lives in the build tree.
//
// Conventions kept by the front end:
// - Lexical errors never reach the parser as errors. Unterminated strings, regexes and block
//   comments are emitted as ordinary STRING/REGEX/BLOCK_COMMENT tokens and reported by the front
//   end (which checks that they are closed); stray characters become ERROR_CHAR tokens on their
//   own channel, reported once each, so they cause no cascade of syntax errors.
// - Most keywords are "soft": the `ident` rule accepts them where a name is expected, so fields
//   such as `x.node` or a symptom named `test` still parse.
grammar Attr;

@lexer::members {
  // A '/' starts a regex literal only where an operand may begin (after an operator, a keyword,
  // an opening bracket, a comma or at the start of input), as in JavaScript. After an operand it
  // is the division operator. The lexer tracks the last token the parser will see to decide.
  std::unique_ptr<antlr4::Token> nextToken() override {
    auto token = antlr4::Lexer::nextToken();
    if (token->getChannel() == antlr4::Token::DEFAULT_CHANNEL) lastSignificant_ = token->getType();
    return token;
  }

  bool regexAllowed() const {
    switch (lastSignificant_) {
      case IDENT: case INT: case FLOAT: case DURATION: case TIMESTAMP: case TIMEOFDAY: case BAD_NUMBER:
      case STRING: case REGEX: case RPAREN: case RBRACK: case TRUE: case FALSE: case NONE:
      case NODE: case RANK: case GPU: case LOG: case METRIC: case SCHEDULER: case WORKLOAD:
      case FIRST: case LAST: case TEST: case DROP: case KEEP: case MARK: case EXPLAIN: case EXPECT:
      case AT: case BY: case PER: case FROM: case LET: case OVERRIDE: case DISABLE:
        return false;
      default:
        return true;
    }
  }

  size_t lastSignificant_ = 0;
}

// ---------------------------------------------------------------------------------------------
// Files and declarations

file : packageDecl? importDecl* declaration* EOF ;

packageDecl : PACKAGE qualifiedName ;
importDecl  : IMPORT qualifiedName (AS ident)? ;

declaration
  : symptomDecl
  | filterDecl
  | ruleDecl
  | outcomeDecl
  | testDecl
  | disableDecl
  ;

// A declaration's name is one ident; a qualified name is read too, so that the checker can say
// that replacing another layer's declaration takes `override` (qualified-declaration).
declName : qualifiedName ;

// ---- layers: `override symptom gpu.xid.xid79 { ... }` replaces a lower layer's declaration;
// `disable rule gpu.xid.r "why"` removes one.
disableDecl : DISABLE declKind=(SYMPTOM | FILTER | RULE | OUTCOME) qualifiedName STRING? ;

// ---- extraction
symptomDecl : OVERRIDE? SYMPTOM declName STRING? LBRACE symptomItem* RBRACE ;

symptomItem
  : ON streamSpec                       # onItem
  | MATCH REGEX                         # matchItem
  | WHEN expr (FOR DURATION)?           # whenItem
  | LET ident ASSIGN expr               # letItem
  | property                            # symptomPropertyItem
  ;

streamSpec
  : LOG (LPAREN ident (IN propertyList | EQ (word | STRING)) RPAREN)?   # logStream
  | METRIC (ident | STRING)                                  # metricStream
  | SCHEDULER                                                # schedulerStream
  | IDENT                                                    # derivedStream
  ;

// ---- filtering
filterDecl : OVERRIDE? FILTER declName STRING? LBRACE filterItem* RBRACE ;

filterItem
  : DROP selectorList (WHERE expr)?                         # dropItem
  | KEEP (FIRST | LAST) INT? selectorList PER identList     # keepPerItem
  | KEEP selectorList WHERE expr                            # keepWhereItem
  | property                                                # filterPropertyItem
  ;

// ---- refinement
ruleDecl : OVERRIDE? RULE declName STRING? LBRACE ruleItem* RBRACE ;

ruleItem
  : WHEN binding (COMMA binding)*                # ruleWhenItem
  | WHERE expr                                   # ruleWhereItem
  | THEN ruleAction (COMMA ruleAction)*          # ruleThenItem
  | property                                     # rulePropertyItem
  ;

binding : selector AS ident ;

ruleAction
  : EXPLAIN ident BY ident                       # explainAction
  | MARK ident AS ident                          # markAction
  | DROP ident                                   # dropAction
  ;

// ---- reporting
outcomeDecl : OVERRIDE? OUTCOME declName STRING? LBRACE outcomeItem* RBRACE ;

outcomeItem
  : WHEN expr                                    # outcomeWhenItem
  | property                                     # outcomePropertyItem
  ;

// ---- inline tests
testDecl : TEST STRING (FROM STRING)? LBRACE testItem* RBRACE ;

testItem
  : WORKLOAD LBRACE property* RBRACE                            # workloadItem
  // The time is required; the grammar lets it be missing so that the checker says so (A207)
  // instead of a syntax error whose recovery reads the rest of the test as attributes.
  | LOG word word attribute* (AT timeValue)? STRING                 # logLineItem
  | METRIC (ident | STRING) attribute* (AT timeValue)? signedNumber # metricSampleItem
  | EXPECT expectKey expectArg*                                  # expectItem
  ;

attribute   : ident (word | INT | STRING) ;
timeValue   : TIMESTAMP | TIMEOFDAY | PLUS DURATION ;
expectKey   : ident | OUTCOME | SYMPTOM ;
// Expectation arguments are not comma-separated, so their names exclude the soft keywords that
// begin the next test item (expect, log, metric, workload).
expectArg   : STRING | signedNumber | DURATION | TIMESTAMP | NONE | TRUE | FALSE | expectWord | propertyList
            | ON word | compareOp signedNumber ;
expectWord  : expectIdent ((MINUS | DOT) (ident | INT))* ;
expectIdent : IDENT | NODE | RANK | GPU | SCHEDULER | FIRST | LAST | TEST | DROP | KEEP | MARK | EXPLAIN
            | AT | BY | PER | FROM | LET | OVERRIDE | DISABLE ;

// ---- metadata and other properties: `name value, value ...`; the checker knows the names.
property      : ident propertyValue (COMMA propertyValue)* ;
propertyValue : STRING | signedNumber | DURATION | TIMESTAMP | NONE | TRUE | FALSE | word | propertyList ;
propertyList  : LBRACK (propertyValue (COMMA propertyValue)*)? RBRACK ;

// A word is a name that may contain '-' and '.' with no spaces around them: family names
// (accelerator-gpu), host names (gpu-0042), qualified names (std.nccl.watchdog_timeout).
word : ident ((MINUS | DOT) (ident | INT))* ;

// ---------------------------------------------------------------------------------------------
// Names and selectors

qualifiedName : ident (DOT ident)* ;
selectorList  : selector (COMMA selector)* ;
selector      : STAR | qualifiedName (DOT STAR)? ;
identList     : ident (COMMA ident)* ;

ident
  : IDENT | NODE | RANK | GPU | LOG | METRIC | SCHEDULER | WORKLOAD | FIRST | LAST
  | TEST | DROP | KEEP | MARK | EXPLAIN | EXPECT | AT | BY | PER | FROM | LET | OVERRIDE | DISABLE
  ;

// ---------------------------------------------------------------------------------------------
// Expressions, highest precedence first.

expr
  : primary                                                   # primaryExpr
  | expr DOT ident                                            # memberExpr
  | MINUS expr                                                # negateExpr
  | expr op=(STAR | SLASH | PERCENT) expr                     # multiplyExpr
  | expr op=(PLUS | MINUS) expr                               # addExpr
  | expr compareOp expr                                       # compareExpr
  | expr NOT? IN expr                                         # inExpr
  | expr op=(MATCHES | NOT_MATCHES) REGEX                     # regexMatchExpr
  | expr IS NOT? (NONE | selector)                            # isExpr
  | NOT expr                                                  # notExpr
  | expr AND expr                                             # andExpr
  | expr OR expr                                              # orExpr
  ;

compareOp : EQ | NE | LT | LE | GT | GE ;

primary
  : literal                                                   # literalPrimary
  | LPAREN expr RPAREN                                        # parenPrimary
  | ident LPAREN (callArg (COMMA callArg)*)? RPAREN (OVER DURATION)?   # callPrimary
  | LBRACK (expr (COMMA expr)*)? RBRACK                       # listPrimary
  | LBRACK expr DOTDOT expr RBRACK                            # rangePrimary
  | SAME ident                                                # samePrimary
  | qualifiedName                                             # namePrimary
  ;

// An aggregate's argument selects symptom instances: `count(xid48 on same node)`,
// `count(std.nccl.* as t where t.rank < 8)`. Plain functions take ordinary expressions.
callArg
  : (qualifiedName DOT STAR | STAR) (AS ident)? (ON SAME ident)? (WHERE expr)?   # wildcardArg
  | expr (AS ident)? (ON SAME ident)? (WHERE expr)?                            # exprArg
  ;

literal : INT | FLOAT | STRING | DURATION | TIMESTAMP | TRUE | FALSE | NONE ;

signedNumber : MINUS? (INT | FLOAT) ;

// ---------------------------------------------------------------------------------------------
// Lexer

PACKAGE   : 'package' ;
IMPORT    : 'import' ;
SYMPTOM   : 'symptom' ;
FILTER    : 'filter' ;
RULE      : 'rule' ;
OUTCOME   : 'outcome' ;
TEST      : 'test' ;
ON        : 'on' ;
MATCH     : 'match' ;
WHEN      : 'when' ;
WHERE     : 'where' ;
THEN      : 'then' ;
FOR       : 'for' ;
OVER      : 'over' ;
AS        : 'as' ;
BY        : 'by' ;
PER       : 'per' ;
SAME      : 'same' ;
AT        : 'at' ;
FROM      : 'from' ;
AND       : 'and' ;
OR        : 'or' ;
NOT       : 'not' ;
IN        : 'in' ;
IS        : 'is' ;
TRUE      : 'true' ;
FALSE     : 'false' ;
NONE      : 'none' ;
DROP      : 'drop' ;
KEEP      : 'keep' ;
EXPLAIN   : 'explain' ;
MARK      : 'mark' ;
EXPECT    : 'expect' ;
WORKLOAD  : 'workload' ;
LOG       : 'log' ;
METRIC    : 'metric' ;
SCHEDULER : 'scheduler' ;
NODE      : 'node' ;
RANK      : 'rank' ;
GPU       : 'gpu' ;
FIRST     : 'first' ;
LAST      : 'last' ;
LET       : 'let' ;
OVERRIDE  : 'override' ;
DISABLE   : 'disable' ;

LBRACE : '{' ;  RBRACE : '}' ;  LPAREN : '(' ;  RPAREN : ')' ;  LBRACK : '[' ;  RBRACK : ']' ;
COMMA  : ',' ;  DOTDOT : '..' ; DOT : '.' ;
EQ : '==' ; ASSIGN : '=' ; NE : '!=' ; LE : '<=' ; GE : '>=' ; LT : '<' ; GT : '>' ;
MATCHES : '=~' ; NOT_MATCHES : '!~' ;
PLUS : '+' ; MINUS : '-' ; STAR : '*' ; SLASH : '/' ; PERCENT : '%' ;

// 2026-01-01T10:00:00Z, with optional seconds, fraction and offset.
TIMESTAMP : D4 '-' D2 '-' D2 'T' D2 ':' D2 (':' D2 ('.' DIGIT+)?)? ('Z' | [+-] D2 ':' D2)? ;
// 10:42:00 (a time of day in a test, on the workload's start date)
TIMEOFDAY : D2 ':' D2 (':' D2 ('.' DIGIT+)?)? ;
// 30s, 5m, 1h30m, 250ms, 2d
DURATION  : (DIGIT+ ('ms' | 'us' | 's' | 'm' | 'h' | 'd'))+ ;
FLOAT     : DIGIT+ '.' DIGIT+ ([eE] [+-]? DIGIT+)? | DIGIT+ [eE] [+-]? DIGIT+ ;
INT       : DIGIT+ ;
// A number run into letters (5min, 0x10): reported as a malformed literal, never split silently.
BAD_NUMBER : DIGIT+ [a-zA-Z_] [a-zA-Z0-9_]* ;

IDENT : [a-zA-Z_] [a-zA-Z0-9_]* ;

// The closing quote is optional so that an unterminated string is one token the front end can
// report precisely (it checks the token ends with an unescaped quote).
STRING : '"' (ESCAPE | ~["\\\r\n])* '"'? ;

// /pattern/flags. Inside [...] a '/' needs no escape. Like STRING, the closing '/' is optional.
REGEX : '/' {regexAllowed()}? REGEX_FIRST REGEX_CHAR* ('/' [a-zA-Z]*)? ;

LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
// A block comment that never closes runs to the end of the file; it cannot contain "*/".
UNTERMINATED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF -> type(BLOCK_COMMENT), channel(HIDDEN) ;

WS : [ \t\r\n\f]+ -> skip ;

ERROR_CHAR : . -> channel(2) ;

fragment DIGIT : [0-9] ;
fragment D2 : DIGIT DIGIT ;
fragment D4 : DIGIT DIGIT DIGIT DIGIT ;
fragment ESCAPE : '\\' ~[\r\n] ;
fragment REGEX_FIRST : ~[*/\\\r\n[] | ESCAPE | REGEX_CLASS ;
fragment REGEX_CHAR : ~[/\\\r\n[] | ESCAPE | REGEX_CLASS ;
fragment REGEX_CLASS : '[' (ESCAPE | ~[\]\\\r\n])* ']'? ;
