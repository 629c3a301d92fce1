import { z } from '../../validation/zod.js';
import { timestamp } from '../../validation/schemas.js';

export const institutionResponse = z
  .object({
    id: z.string().openapi({ example: 'inst_8sJd2KfLq9XwBn3Vc7TzPm1R' }),
    name: z.string().openapi({ example: 'Riverside High' }),
    status: z.enum(['pending', 'approved', 'suspended']),
    created_at: timestamp,
    counts: z
      .object({
        students: z.number().int(),
        faculty: z.number().int(),
        groups: z.number().int(),
        exams: z.number().int(),
        active_licenses: z.number().int(),
      })
      .openapi({ example: { students: 412, faculty: 31, groups: 24, exams: 57, active_licenses: 440 } }),
  })
  .openapi('Institution');

const aiPolicy = z
  .strictObject({
    allowed: z.boolean(),
    model_tier: z.string().min(1).max(50),
    max_interactions: z.number().int().min(0).max(100_000),
  })
  .partial()
  .openapi({ example: { allowed: true, model_tier: 'standard', max_interactions: 20 } });

const proctoring = z
  .strictObject({ camera: z.boolean(), screen: z.boolean() })
  .partial()
  .openapi({ example: { camera: false, screen: true } });

const freeObject = z.record(z.string(), z.unknown());

export const integrationConfig = z
  .strictObject({
    default_ai_policy: aiPolicy,
    default_proctoring: proctoring,
    allowed_toolchains: z
      .array(z.string().min(1).max(100))
      .max(100)
      .refine((list) => new Set(list).size === list.length, 'Toolchains must not repeat.')
      .openapi({ example: ['python-3.12', 'node-20'] }),
    toolchain_mirror: freeObject.nullable().openapi({ example: { url: 'https://mirror.riverside.example/toolchains' } }),
    lms: freeObject.openapi({ example: { name: 'Moodle', base_url: 'https://lms.riverside.example' } }),
  })
  .openapi('IntegrationConfig', { description: 'All five fields are required on PUT; the config is replaced whole.' });
