// Package app is drasim's command line: one file per subcommand, each with a
// flags struct, a NewXCommand constructor and a run function. Only Main calls
// os.Exit; Run executes a command line in-process with the streams it is given,
// so every command can be tested without a subprocess.
package app
