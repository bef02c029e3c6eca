// Package imports holds imports: the stored file's rows, their plan per
// kind (catalogue, code mappings, document metadata, partners) and their
// apply in batches through the areas' own commands.
package imports
