import { z } from '../../validation/zod.js';

/** The file a signed link names. */
export const fileParams = z.strictObject({
  ref: z.string().min(1).max(320).openapi({ description: 'The file ref, as in the link.', example: 'file_8Hn3pQ6xKw1Pz5Rb2Tm9Vc7Y' }),
});

/** The signed link's proof; both optional: a link missing either is answered like any other bad link (404), not with a 422 that tells them apart. */
export const fileQuery = z.strictObject({
  expires: z.string().optional().openapi({ description: 'Unix seconds, from the signed link.', example: '1789380900' }),
  signature: z.string().optional().openapi({ description: 'From the signed link.', example: '5d41402abc4b2a76b9719d911017c592…' }),
  student: z
    .string()
    .max(40)
    .optional()
    .openapi({ description: "On a student's link to an exam archive: the student it was made for.", example: 'stu_9Kq2Lm4Np6Rs8Tv0Wx3Yz5Ab' }),
});
