// maf-runner SCENARIO.json [--resume N | --restore N | --all] [--execution lockstep|offthread] [--raw]: runs a
// Stepfault JSON scenario on the real MAF and prints its normalized trace (docs/engine-semantics.md §11) on stdout,
// one canonical JSON object per line. The command line is Cli.RunAsync, which the xunit tests call in-process.
return await Stepfault.Maf.Runner.Cli.RunAsync(args, Console.Out, Console.Error);
