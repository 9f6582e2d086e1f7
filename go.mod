module effectivelyonce

go 1.26.0
