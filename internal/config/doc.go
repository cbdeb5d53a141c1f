// Package config reads YAML (cluster files, policies, teams) into model types
// strictly: an unknown or misspelt field is an error naming its line, so a
// typo never silently becomes a default, and a value of the wrong kind is
// named by its line and place, with the kind it must be. DescribeJSON says
// the same of JSON decode errors (place, value, kind) for the API's bodies
// and the SageMaker documents.
//
// It imports only model and the YAML library.
package config
