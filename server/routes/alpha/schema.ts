import { ALPHA_RULES, BADGES } from '../../commands/alpha/rules.js';
import { z } from '../../validation/zod.js';

export const CURRICULUM_EXAMPLE = 'cur_3Fh8kL2xWq7Pz1Rb9Tn4Vc6Y';
export const CONCEPT_EXAMPLE = 'con_8Jm2kQ5xLw9Pz3Rb7Tn1Vc4Y';
export const ENROLLMENT_EXAMPLE = 'enr_6Kp9mT3xNw2Lz8Rb4Vn7Hc1Y';
export const STUDENT_EXAMPLE = 'stu_7Hk2mQ9xLw4Pz8Rb1Tn5Vc3Y';
export const FACULTY_EXAMPLE = 'fac_2Lm8kQ4xNw7Pz1Rb9Tn3Vc6Y';

export const ref = (description: string, example: string) => z.string().min(1).max(320).openapi({ description, example });

export const curriculumStatus = z.enum(['draft', 'published']);
export const enrollmentStatus = z.enum(['active', 'paused', 'completed']);
export const badgeCode = z.enum(Object.keys(BADGES) as [keyof typeof BADGES, ...Array<keyof typeof BADGES>]).openapi({
  description: Object.entries(BADGES)
    .map(([code, meaning]) => `\`${code}\`: ${meaning}`)
    .join(' '),
});
export const masteryValue = z
  .number()
  .min(0)
  .max(1)
  .openapi({
    description: `0 to 1, 4 decimals. Each activity moves it ${ALPHA_RULES.MASTERY_RATE} of the way toward 1 (correct) or 0 (wrong), from 0.`,
    example: 0.657,
  });
