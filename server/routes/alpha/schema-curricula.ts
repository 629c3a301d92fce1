import { pageOf, pageQuery } from '../../validation/schemas.js';
import { z } from '../../validation/zod.js';
import { CONCEPT_EXAMPLE, CURRICULUM_EXAMPLE, curriculumStatus } from './schema.js';

export const curriculumSchema = z
  .object({
    id: z.string().openapi({ example: CURRICULUM_EXAMPLE }),
    name: z.string().openapi({ example: 'Fractions' }),
    description: z.string().openapi({ example: 'Equivalent fractions to mixed-number arithmetic.' }),
    status: curriculumStatus.openapi({ description: 'Always `published` here: drafts are not visible through the API.' }),
    scope: z
      .enum(['institution', 'shared'])
      .openapi({ description: "`shared`: offered to every institution on the appliance. `institution`: this institution's own." }),
    concepts: z
      .array(z.object({ id: z.string().openapi({ example: CONCEPT_EXAMPLE }), name: z.string().openapi({ example: 'Equivalent fractions' }) }))
      .openapi({ description: "In the curriculum's order." }),
  })
  .openapi('AlphaCurriculum');

export const listCurriculaQuery = z.strictObject({
  status: curriculumStatus
    .optional()
    .openapi({ description: 'Only published curricula are ever listed: `published` is the same as no filter, `draft` always gives an empty page.' }),
  ...pageQuery,
});

export const curriculumPage = pageOf(curriculumSchema);
