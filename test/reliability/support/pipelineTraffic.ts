/**
 * Traffic for the whole-pipeline fuzz: the crash tests' deterministic operational traffic (a DNLD
 * plan, FLOP operations, duplicates, unknown flights, undecodable bodies) interleaved with samples
 * of every codec fuzz family, plus a few bodies of several MiB. Deterministic for a seed.
 */
import fc from 'fast-check';
import { generateTraffic } from '../../write/support/traffic.ts';
import type { Family, Planted } from './fuzzCase.ts';
import { boundaryNumbers, structure, textRoundTrip, times, validMessages } from './fuzzFamilies.ts';
import { deepNesting, encodings, entityAttacks, hugeBodies, mutatedCorpus, randomText } from './fuzzHostile.ts';

const NUL = '\u0000';

export interface PipelineTraffic {
  readonly messages: readonly string[];
  /** Generated inputs left out because they hold U+0000 (see the dedicated test). */
  readonly withNul: number;
}

export function pipelineTraffic(total: number, seed: number, planted: Planted): PipelineTraffic {
  const share: [Family, number][] = [
    [validMessages, 0.1], [textRoundTrip, 0.05], [boundaryNumbers, 0.05], [times, 0.05], [structure, 0.05],
    [entityAttacks(planted), 0.05], [encodings, 0.05], [deepNesting, 0.01], [mutatedCorpus(), 0.15], [randomText, 0.04],
  ];
  let withNul = 0;
  const hostile: string[] = [];
  share.forEach(([family, part], i) => {
    for (const c of fc.sample(family.arb, { seed: seed + i, numRuns: Math.ceil(total * part) })) {
      if (c.raw.includes(NUL)) withNul++;
      else hostile.push(c.raw);
    }
  });
  hostile.push(...hugeBodies.examples.filter((c) => c.raw.length <= 6 * 1024 * 1024).slice(0, 3).map((c) => c.raw));
  const operational = generateTraffic(Math.max(total - hostile.length, 1000));
  // Interleave: the operational stream keeps its order (its DNLD first), hostile inputs spread through it.
  const messages: string[] = [];
  const every = operational.length / hostile.length;
  let h = 0;
  operational.forEach((m, i) => {
    messages.push(m);
    while (h < hostile.length && h * every <= i) messages.push(hostile[h++]!);
  });
  messages.push(...hostile.slice(h));
  return { messages, withNul };
}
