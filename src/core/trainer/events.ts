import { z } from 'zod';

/**
 * The trainer's events: one JSON object per line on its stdout. Mirrors
 * protocol/trainer-events.schema.json (a unit test fails when the two drift).
 */
const base = { job: z.string(), time: z.number() };

export const ProgressEvent = z
  .object({
    type: z.literal('progress'),
    ...base,
    step: z.int().min(0),
    totalSteps: z.int().min(0),
    message: z.string().optional(),
  })
  .strict();
export const MetricEvent = z
  .object({
    type: z.literal('metric'),
    ...base,
    step: z.int().min(0),
    data: z.record(z.string(), z.number()),
  })
  .strict();
export const CheckpointEvent = z
  .object({ type: z.literal('checkpoint'), ...base, step: z.int().min(0), path: z.string() })
  .strict();
export const DoneEvent = z
  .object({
    type: z.literal('done'),
    ...base,
    output: z.string(),
    metrics: z.record(z.string(), z.number()),
    onnx: z.string().optional(),
  })
  .strict();
export const ErrorEvent = z
  .object({ type: z.literal('error'), ...base, message: z.string(), hint: z.string().optional() })
  .strict();

export const TrainerEvent = z.discriminatedUnion('type', [
  ProgressEvent,
  MetricEvent,
  CheckpointEvent,
  DoneEvent,
  ErrorEvent,
]);
export type TrainerEvent = z.infer<typeof TrainerEvent>;

export const TRAINER_EVENT_SCHEMAS = {
  progress: ProgressEvent,
  metric: MetricEvent,
  checkpoint: CheckpointEvent,
  done: DoneEvent,
  error: ErrorEvent,
};
