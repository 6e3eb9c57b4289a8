/* libclang.h: the libclang C API as difftrace uses it, loaded at run time (libclang.c) by
 * blame-index alone: linked into difftrace, libclang and LLVM would be loaded by every command
 * (60 MB more resident, tens of milliseconds at each start). Include it instead of
 * <clang-c/Index.h>: the API's names then call through the loaded pointers. */
#ifndef DT_BLAME_LIBCLANG_H
#define DT_BLAME_LIBCLANG_H

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

#include "util/err.h"

#define BX_LIBCLANG_FUNCS(X) \
	X(clang_CompilationDatabase_dispose) \
	X(clang_CompilationDatabase_fromDirectory) \
	X(clang_CompilationDatabase_getAllCompileCommands) \
	X(clang_CompilationDatabase_getCompileCommands) \
	X(clang_CompileCommand_getArg) \
	X(clang_CompileCommand_getDirectory) \
	X(clang_CompileCommand_getFilename) \
	X(clang_CompileCommand_getNumArgs) \
	X(clang_CompileCommands_dispose) \
	X(clang_CompileCommands_getCommand) \
	X(clang_CompileCommands_getSize) \
	X(clang_Cursor_getArgument) \
	X(clang_Cursor_getNumArguments) \
	X(clang_Cursor_getStorageClass) \
	X(clang_Cursor_getVarDeclInitializer) \
	X(clang_Cursor_hasVarDeclGlobalStorage) \
	X(clang_Cursor_isNull) \
	X(clang_File_isEqual) \
	X(clang_File_tryGetRealPathName) \
	X(clang_Location_isFromMainFile) \
	X(clang_createIndex) \
	X(clang_disposeDiagnostic) \
	X(clang_disposeIndex) \
	X(clang_disposeString) \
	X(clang_disposeTokens) \
	X(clang_disposeTranslationUnit) \
	X(clang_equalCursors) \
	X(clang_getCString) \
	X(clang_getCanonicalCursor) \
	X(clang_getCanonicalType) \
	X(clang_getClangVersion) \
	X(clang_getCursorExtent) \
	X(clang_getCursorKind) \
	X(clang_getCursorLocation) \
	X(clang_getCursorReferenced) \
	X(clang_getCursorSemanticParent) \
	X(clang_getCursorSpelling) \
	X(clang_getCursorType) \
	X(clang_getDiagnostic) \
	X(clang_getDiagnosticLocation) \
	X(clang_getDiagnosticSeverity) \
	X(clang_getDiagnosticSpelling) \
	X(clang_getExpansionLocation) \
	X(clang_getFile) \
	X(clang_getFileName) \
	X(clang_getLocation) \
	X(clang_getNullCursor) \
	X(clang_getNumDiagnostics) \
	X(clang_getPointeeType) \
	X(clang_getRange) \
	X(clang_getRangeEnd) \
	X(clang_getRangeStart) \
	X(clang_getResultType) \
	X(clang_getToken) \
	X(clang_getTokenKind) \
	X(clang_getTokenLocation) \
	X(clang_getTokenSpelling) \
	X(clang_getTranslationUnitCursor) \
	X(clang_getTranslationUnitSpelling) \
	X(clang_getTypeSpelling) \
	X(clang_hashCursor) \
	X(clang_isConstQualifiedType) \
	X(clang_isCursorDefinition) \
	X(clang_isExpression) \
	X(clang_isStatement) \
	X(clang_parseTranslationUnit2) \
	X(clang_parseTranslationUnit2FullArgv) \
	X(clang_tokenize) \
	X(clang_visitChildren) \
	/* end */

#define BX_LIBCLANG_DECLARE(f) extern __typeof__(&f) bx_##f;
BX_LIBCLANG_FUNCS(BX_LIBCLANG_DECLARE)

/* Loads libclang once; -1 with e when it cannot (named, with the loader's reason). */
int bx_libclang_load(dt_err *e);

#ifndef BX_LIBCLANG_NO_RENAME
#define clang_CompilationDatabase_dispose (*bx_clang_CompilationDatabase_dispose)
#define clang_CompilationDatabase_fromDirectory (*bx_clang_CompilationDatabase_fromDirectory)
#define clang_CompilationDatabase_getAllCompileCommands (*bx_clang_CompilationDatabase_getAllCompileCommands)
#define clang_CompilationDatabase_getCompileCommands (*bx_clang_CompilationDatabase_getCompileCommands)
#define clang_CompileCommand_getArg (*bx_clang_CompileCommand_getArg)
#define clang_CompileCommand_getDirectory (*bx_clang_CompileCommand_getDirectory)
#define clang_CompileCommand_getFilename (*bx_clang_CompileCommand_getFilename)
#define clang_CompileCommand_getNumArgs (*bx_clang_CompileCommand_getNumArgs)
#define clang_CompileCommands_dispose (*bx_clang_CompileCommands_dispose)
#define clang_CompileCommands_getCommand (*bx_clang_CompileCommands_getCommand)
#define clang_CompileCommands_getSize (*bx_clang_CompileCommands_getSize)
#define clang_Cursor_getArgument (*bx_clang_Cursor_getArgument)
#define clang_Cursor_getNumArguments (*bx_clang_Cursor_getNumArguments)
#define clang_Cursor_getStorageClass (*bx_clang_Cursor_getStorageClass)
#define clang_Cursor_getVarDeclInitializer (*bx_clang_Cursor_getVarDeclInitializer)
#define clang_Cursor_hasVarDeclGlobalStorage (*bx_clang_Cursor_hasVarDeclGlobalStorage)
#define clang_Cursor_isNull (*bx_clang_Cursor_isNull)
#define clang_File_isEqual (*bx_clang_File_isEqual)
#define clang_File_tryGetRealPathName (*bx_clang_File_tryGetRealPathName)
#define clang_Location_isFromMainFile (*bx_clang_Location_isFromMainFile)
#define clang_createIndex (*bx_clang_createIndex)
#define clang_disposeDiagnostic (*bx_clang_disposeDiagnostic)
#define clang_disposeIndex (*bx_clang_disposeIndex)
#define clang_disposeString (*bx_clang_disposeString)
#define clang_disposeTokens (*bx_clang_disposeTokens)
#define clang_disposeTranslationUnit (*bx_clang_disposeTranslationUnit)
#define clang_equalCursors (*bx_clang_equalCursors)
#define clang_getCString (*bx_clang_getCString)
#define clang_getCanonicalCursor (*bx_clang_getCanonicalCursor)
#define clang_getCanonicalType (*bx_clang_getCanonicalType)
#define clang_getClangVersion (*bx_clang_getClangVersion)
#define clang_getCursorExtent (*bx_clang_getCursorExtent)
#define clang_getCursorKind (*bx_clang_getCursorKind)
#define clang_getCursorLocation (*bx_clang_getCursorLocation)
#define clang_getCursorReferenced (*bx_clang_getCursorReferenced)
#define clang_getCursorSemanticParent (*bx_clang_getCursorSemanticParent)
#define clang_getCursorSpelling (*bx_clang_getCursorSpelling)
#define clang_getCursorType (*bx_clang_getCursorType)
#define clang_getDiagnostic (*bx_clang_getDiagnostic)
#define clang_getDiagnosticLocation (*bx_clang_getDiagnosticLocation)
#define clang_getDiagnosticSeverity (*bx_clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (*bx_clang_getDiagnosticSpelling)
#define clang_getExpansionLocation (*bx_clang_getExpansionLocation)
#define clang_getFile (*bx_clang_getFile)
#define clang_getFileName (*bx_clang_getFileName)
#define clang_getLocation (*bx_clang_getLocation)
#define clang_getNullCursor (*bx_clang_getNullCursor)
#define clang_getNumDiagnostics (*bx_clang_getNumDiagnostics)
#define clang_getPointeeType (*bx_clang_getPointeeType)
#define clang_getRange (*bx_clang_getRange)
#define clang_getRangeEnd (*bx_clang_getRangeEnd)
#define clang_getRangeStart (*bx_clang_getRangeStart)
#define clang_getResultType (*bx_clang_getResultType)
#define clang_getToken (*bx_clang_getToken)
#define clang_getTokenKind (*bx_clang_getTokenKind)
#define clang_getTokenLocation (*bx_clang_getTokenLocation)
#define clang_getTokenSpelling (*bx_clang_getTokenSpelling)
#define clang_getTranslationUnitCursor (*bx_clang_getTranslationUnitCursor)
#define clang_getTranslationUnitSpelling (*bx_clang_getTranslationUnitSpelling)
#define clang_getTypeSpelling (*bx_clang_getTypeSpelling)
#define clang_hashCursor (*bx_clang_hashCursor)
#define clang_isConstQualifiedType (*bx_clang_isConstQualifiedType)
#define clang_isCursorDefinition (*bx_clang_isCursorDefinition)
#define clang_isExpression (*bx_clang_isExpression)
#define clang_isStatement (*bx_clang_isStatement)
#define clang_parseTranslationUnit2 (*bx_clang_parseTranslationUnit2)
#define clang_parseTranslationUnit2FullArgv (*bx_clang_parseTranslationUnit2FullArgv)
#define clang_tokenize (*bx_clang_tokenize)
#define clang_visitChildren (*bx_clang_visitChildren)
#endif

#endif
