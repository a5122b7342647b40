// A tool's command line: node:util's parseArgs, strict, with --help printing the usage and a bad flag answered by its
// name and the usage (exit 2) instead of a stack trace.
import { type ParseArgsConfig, parseArgs } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
const helpOption = { help: { type: 'boolean', default: false } } as const;

export function parseFlags<const O extends Options>(usage: string, options: O) {
  const parse = () => parseArgs({ options: { ...options, ...helpOption }, strict: true, allowPositionals: false });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  const flags = parsed.values;
  if ((flags as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return {
    flags,
    /** The flag's value as a number from `min` to `max`; anything else stops the tool with exit code 2. */
    number(name: keyof O & string, min: number, max: number): number {
      const value = Number((flags as Record<string, unknown>)[name]);
      if (!Number.isFinite(value) || value < min || value > max) {
        console.error(`--${name}: expected a number from ${min} to ${max}`);
        process.exit(2);
      }
      return value;
    },
  };
}
