// Package funclen holds no code: its test keeps every hand-written function
// of the module short enough to read on one screen (docs/architecture.md,
// "Rooms a newcomer can read"). A function's length is the number of lines
// strictly between its signature's first line and its closing brace; test
// files, generated files and the test helper packages (a folder whose name
// ends in "test") are not counted.
package funclen
