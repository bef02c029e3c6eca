package models

// CodeMappingImportColumns are the columns of a code_mappings import: the
// dictionary, the organization's own code and the dictionary code it
// stands for.
var CodeMappingImportColumns = []string{"dictionary", "sourceCode", "code"}
