package detect

// svcExit is an answer that exited code with out, for the tests here.
func svcExit(code int, out string) Answer { return Answer{Status: StatusOK, Exit: code, Output: out} }
