import { Query } from '@nestjs/cqrs';
import type { TenantContext } from '@fetcher/engine';
import type { MappedFieldsInput } from '../dto/validate-schema.request';

export interface ValidateSchemaResult {
  readonly status: 'success';
  readonly message: string;
}

export class ValidateSchemaQuery extends Query<ValidateSchemaResult> {
  constructor(
    readonly tenant: TenantContext,
    readonly mappedFields: MappedFieldsInput,
  ) {
    super();
  }
}
