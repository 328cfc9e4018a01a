/**
 * The request pipeline's steps, each of which the pipeline benchmark (bench/pipeline.ts) turns off
 * in turn to price it on a cache hit. Not configuration: only `buildApp`'s `stepsOff` option (bench
 * and tests) sets them, never the environment, so a deployment always runs every step.
 */
export const PIPELINE_STEPS = [
  'requestId',
  'securityHeaders',
  'cors',
  'keyLookup',
  'quota',
  'cache',
  'quotaHeaders',
  'usage',
  'metrics',
] as const;

export type PipelineStep = (typeof PIPELINE_STEPS)[number];

/** The steps turned off: none in a deployment. */
export type StepsOff = ReadonlySet<PipelineStep>;

export const ALL_STEPS_ON: StepsOff = new Set();
