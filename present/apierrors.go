package present

import "effectivelyonce/experiments"

// APIErrors is the body of every refused API request, whatever refused it: one entry per field,
// with an empty field name when the fault is not one parameter's.
type APIErrors struct {
	Errors experiments.FieldErrors `json:"errors"`
}

// APIError is an APIErrors of one message.
func APIError(field, msg string) APIErrors {
	return APIErrors{Errors: experiments.FieldErrors{{Field: field, Message: msg}}}
}
