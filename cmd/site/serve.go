package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"effectivelyonce/content"
	"effectivelyonce/internal/site"
	"effectivelyonce/internal/web"
	"effectivelyonce/rooms/sqlstore"
	"effectivelyonce/static"
)

// serve opens what the server needs (its log, the content, the assets, the rooms' store and their
// hub), wires the server and serves on cfg.Addr until ctx ends; see site.Server.Serve for how it
// stops. Everything opened here is closed after the server has drained.
func serve(ctx context.Context, cfg site.Config, stdout io.Writer) error {
	var handler slog.Handler = slog.NewTextHandler(stdout, nil)
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(stdout, nil)
	}
	log := slog.New(handler)
	if cfg.MemLimit > 0 {
		site.ApplyMemoryLimit(cfg.MemLimit)
	}
	files, err := web.RaiseFileLimit()
	if err != nil {
		log.Warn("open file limit", "err", err)
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = web.MaxConnsDefault(files, cfg.MemLimit)
	}
	book, err := content.Load(content.Files, content.WithBase(cfg.BasePath))
	if err != nil {
		return err
	}
	a, err := web.LoadAssets(static.Files)
	if err != nil {
		return err
	}
	store, err := sqlstore.Open(ctx, cfg.RoomsDSN())
	if err != nil {
		return fmt.Errorf("study rooms store: %w", err)
	}
	// Closed last, after the HTTP server has drained, so no request in flight loses its store.
	defer store.Close()
	hub, err := site.NewHub(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer hub.Close()
	s, err := site.New(cfg, site.Deps{Log: log, Book: book, Assets: a, Rooms: site.NewRooms(store, cfg, hub, log), Hub: hub,
		Shares: store, Children: children, RoomsDB: store.Dialect()})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}
