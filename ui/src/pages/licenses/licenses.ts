import type { z } from 'zod';
import type { licenseSchema, licenseSummary, seatList, seatSchema } from '../../../../server/routes/licenses/schema';

/** Licenses' wire types: type-only imports of the server's schemas (z.input: the JSON the handler returns). */
export type License = z.input<typeof licenseSchema>;
export type LicenseSummary = z.input<typeof licenseSummary>;
export type Seat = z.input<typeof seatSchema>;
export type SeatList = z.input<typeof seatList>;
