import HearthCLI

await Hearth.runFromCommandLine()
