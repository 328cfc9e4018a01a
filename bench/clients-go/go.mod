module github.com/gaming-hub/gaming-hub-api/bench/clients-go

go 1.25

require github.com/gaming-hub/gaming-hub-go v0.1.0

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/oapi-codegen/runtime v1.8.0 // indirect
)

replace github.com/gaming-hub/gaming-hub-go => ../../clients/go
