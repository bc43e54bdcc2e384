package main

import (
	"os"
	"os/user"
	"strconv"
)

// cliActor is who the command line is in the books' records: "cli:" and
// the OS user running it (the user's name from the system, else $USER,
// else the numeric id), so a release or a notice recorded from a shell is
// as traceable as one sent with an API key.
func cliActor() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return "cli:" + u.Username
	}
	if n := os.Getenv("USER"); n != "" {
		return "cli:" + n
	}
	return "cli:uid " + strconv.Itoa(os.Getuid())
}
