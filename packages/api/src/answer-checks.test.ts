// The answer checks (answer-checks.ts) on a router of their own, and the service's router held to having them all.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decideAnswerChecks, jsonDifference } from './answer-checks';
import type { AnswerChecks, Context } from './context';
import { answerCheckedProcedures, appRouter } from './router';
import { createCallerFactory, publicProcedure, router } from './trpc';

const answer = z.object({ id: z.string(), count: z.number().int() });
const testRouter = router({
  good: publicProcedure.output(answer).query(() => ({ id: 'a', count: 1 })),
  // What a schema would strip (a field it does not declare) and what it would refuse.
  extra: publicProcedure.output(answer).query(() => ({ id: 'a', count: 1, secret: 'internal' })),
  wrong: publicProcedure.output(answer).query(() => ({ id: 'a', count: 1.5 })),
});
const checked = decideAnswerChecks(testRouter._def.procedures);
const caller = (answerChecks: AnswerChecks | undefined) =>
  createCallerFactory(testRouter)({ answerChecks } as unknown as Context);

describe('answer checks', () => {
  it('replace the output parse of every procedure of the service that has an output schema', () => {
    expect(checked).toBe(3);
    const withOutput = Object.values(
      appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown } }>,
    );
    expect(withOutput.filter((procedure) => procedure._def.output !== undefined).length).toBe(answerCheckedProcedures);
    expect(answerCheckedProcedures).toBeGreaterThan(30);
  });

  it('strict (the default): an answer must pass its schema unchanged', async () => {
    for (const mode of ['strict', undefined] as const) {
      await expect(caller(mode).good()).resolves.toEqual({ id: 'a', count: 1 });
      await expect(caller(mode).extra()).rejects.toThrow(/changes the answer at \/secret/);
      await expect(caller(mode).wrong()).rejects.toThrow(/fails its schema/);
    }
  });

  it('off: the answer is sent as the procedure returned it, unparsed', async () => {
    await expect(caller('off').good()).resolves.toEqual({ id: 'a', count: 1 });
    await expect(caller('off').extra()).resolves.toEqual({ id: 'a', count: 1, secret: 'internal' });
  });

  it('compare JSON as it is sent: keys in any order, undefined as absent', () => {
    expect(jsonDifference({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBeUndefined();
    expect(jsonDifference({ a: [1, 2] }, { a: [1, 3] })).toBe('/a/1');
    expect(jsonDifference({ a: [1] }, { a: { 0: 1 } })).toBe('/a');
    expect(jsonDifference(1, 2)).toBe('(the answer)');
  });
});
