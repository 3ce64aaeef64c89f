// Package outfile is the one writer of every file drasim writes on a
// user's behalf (--output-snapshot, --output-junit, --output-html, the
// profiles, and every output flag added later). A command names each
// output with a Target and uses two calls:
//
//	t := outfile.Target{Flag: "--output-snapshot", Path: path}
//	err := t.Check(inputs)                  // before the run
//	...
//	err = t.Write(stdout, func(w io.Writer) error { ... }) // after it
//
// The rules, in one place:
//
//   - "-" is standard output: Write writes to the stdout it is given.
//   - A path that does not exist yet, or an existing regular file, is
//     written atomically: into a temporary file in the same directory,
//     renamed over the path when complete. A failed write leaves the old
//     file (or nothing) and no temporary file. New files get mode 0644
//     before the umask, as kubectl's; a replaced file keeps its mode.
//   - Symlinks, character and block devices, FIFOs and sockets (and a
//     regular file in a directory that cannot take the temporary file) are
//     written through: opened and written in place, never replaced, so
//     /dev/stdout, /dev/null, a named pipe or a link into another directory
//     work as in a shell redirection.
//   - Check runs before any work: the directory must exist, the path must
//     not be a directory, and it must not be one of the files the command
//     reads (compared as files, so a symlink or hard link to an input, or
//     an input found by walking a directory, is recognized). It neither
//     creates nor opens anything, so a FIFO is not opened early.
//   - Every error names the flag and the path as the user wrote them,
//     never the temporary file: "--output-junit out/x.xml: directory out
//     does not exist".
//
// Errors that mean the command line itself is wrong (an output that is an
// input, a directory) wrap ErrUsage.
//
// In cmd/drasim/app, a new output flag needs two lines: markOutput(flags,
// "output-x") where the flag is defined (the flag is then checked with
// every other output before the run, against every file the command
// reads), and g.files.write("output-x", fn) where the output is ready.
// Output flags are named --output-<what>.
package outfile
