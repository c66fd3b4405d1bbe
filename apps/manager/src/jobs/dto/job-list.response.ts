import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { JobPage } from '../queries/list-jobs.query';
import { encodeJobCursor } from './job-cursor';
import { JobResponse, jobResponse } from './job.response';

export class JobListResponse {
  @ApiProperty({ type: [JobResponse], description: 'Newest first; each job as GET /v1/fetcher/{id} shows it' })
  items!: JobResponse[];
  @ApiPropertyOptional({ description: 'Pass as `cursor` for the next page; absent on the last page' })
  nextCursor?: string;
}

export function jobListResponse(page: JobPage): JobListResponse {
  return { items: page.jobs.map(jobResponse), ...(page.next ? { nextCursor: encodeJobCursor(page.next) } : {}) };
}
